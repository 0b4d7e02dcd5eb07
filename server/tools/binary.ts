/**
 * How the file tools tell a binary file from text, in one place (read_file, edit_file, grep).
 *
 * @module
 */

/** Bytes scanned for a NUL before a file counts as text. */
export const BINARY_SNIFF_BYTES = 8192;

/** Whether bytes read from the start of a file look binary: a NUL in the first 8 KiB. */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}
