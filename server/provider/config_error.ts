/**
 * The error a provider configuration that cannot be used raises (a `provider_headers` variable
 * that is not set, say). Its own small module so a turn's failure path can tell it from a bug
 * without loading a provider.
 *
 * @module
 */

/** A provider setting that cannot be used as configured; the message names the key. */
export class ProviderConfigError extends TypeError {
  /** Builds the error; the message is user-facing and never holds a secret. */
  constructor(message: string) {
    super(message);
    this.name = "ProviderConfigError";
  }
}
