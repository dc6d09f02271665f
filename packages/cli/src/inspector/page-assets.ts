/**
 * The static files of the inspector page, by path. The Config tab's script exists only with
 * `--inspect-admin`; without it `/js/config.js` is as unknown as any other path.
 */
import { CONFIG_SCRIPT } from './page-config-script.js'
import { DETAIL_SCRIPT } from './page-detail-script.js'
import { DOM_SCRIPT } from './page-dom-script.js'
import { MAIN_SCRIPT } from './page-main-script.js'
import { PAGE_STYLE } from './page-style.js'

/** A static file: its content type and text. */
export interface PageAsset {
  readonly type: string
  readonly text: string
}

const SCRIPT = 'text/javascript'

// A brown diamond, the header's mark; served so the browser's icon request is not a 404.
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
  '<path d="M8 1 15 8 8 15 1 8z" fill="#8a5a2b"/></svg>'

const ASSETS: Readonly<Record<string, PageAsset>> = {
  '/style.css': { type: 'text/css', text: PAGE_STYLE },
  '/favicon.svg': { type: 'image/svg+xml', text: FAVICON },
  '/js/dom.js': { type: SCRIPT, text: DOM_SCRIPT },
  '/js/main.js': { type: SCRIPT, text: MAIN_SCRIPT },
  '/js/detail.js': { type: SCRIPT, text: DETAIL_SCRIPT },
}

const ADMIN_ASSETS: Readonly<Record<string, PageAsset>> = {
  '/js/config.js': { type: SCRIPT, text: CONFIG_SCRIPT },
}

/** The asset at `path`, or null. */
export function pageAsset(path: string, admin: boolean): PageAsset | null {
  if (Object.hasOwn(ASSETS, path)) return ASSETS[path]!
  if (admin && Object.hasOwn(ADMIN_ASSETS, path)) return ADMIN_ASSETS[path]!
  return null
}
