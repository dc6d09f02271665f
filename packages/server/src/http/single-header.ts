/** The value of a header sent once; undefined when absent or repeated (not a valid id then). */
export function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}
