/**
 * Migration `027_tool_pin_forms`: which field set each pinned hash covers. Pins stored before
 * rug-pull protection pinned `icons`, `execution` and MCP Apps' `_meta.ui` hold hashes of the
 * fields pinned before (form 1, left null here); those written since say form 2. A form-1 pin
 * whose former fields still match what a server lists is re-pinned in form 2 without an alert
 * (governance/pin-forms.ts), so upgrading does not flood owners with `changed` tools.
 */
import type { Kysely, Migration } from 'kysely'

export const toolPinFormsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('tool_pins').addColumn('approved_form', 'integer').execute()
    await db.schema.alterTable('tool_pins').addColumn('current_form', 'integer').execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('tool_pins').dropColumn('current_form').execute()
    await db.schema.alterTable('tool_pins').dropColumn('approved_form').execute()
  },
}
