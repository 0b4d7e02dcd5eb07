/**
 * Assertions in the shape of Deno's std/assert (jsr is not reachable here), built on
 * `node:assert/strict`.
 *
 * @module
 */
import nodeAssert from "node:assert/strict";

/** Asserts that a value is truthy. */
export function assert(value: unknown, message?: string): asserts value {
  nodeAssert.ok(value, message);
}

/** Asserts deep equality. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

/** Asserts a string matches a pattern. */
export function assertMatch(actual: string, re: RegExp, message?: string): void {
  nodeAssert.match(actual, re, message);
}

/** Asserts a promise rejects, optionally with an error of a class; returns the error. */
export async function assertRejects<E extends Error = Error>(
  fn: () => Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  errorClass?: new (...args: any[]) => E,
): Promise<E> {
  try {
    await fn();
  } catch (e) {
    if (errorClass && !(e instanceof errorClass)) {
      throw new Error(`expected ${errorClass.name}, got ${e}`);
    }
    return e as E;
  }
  throw new Error("expected a rejection");
}
