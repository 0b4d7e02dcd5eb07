/**
 * Inside the sandbox: a forwarder (socat, as Claude Code's sandbox runtime uses) from the
 * sandbox's own loopback to scv's proxy socket bound into it, started before the command and
 * waited for, with the proxy variables set for the command. It dies with the call's PID
 * namespace like every other process of the call.
 *
 * @module
 */

/** Where the proxy's socket is bound inside (under the private `/tmp`). */
export const PROXY_SOCKET_INSIDE = "/tmp/.scv-proxy.sock";
/** The loopback port inside that the forwarder listens on. */
export const PROXY_PORT = 3128;

const SCRIPT = String.raw`
socat=$1 token=$2; shift 2
"$socat" TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_INSIDE} 2>/dev/null &
i=0
while ! (: </dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null; do
  i=$((i + 1)); [ "$i" -gt 500 ] && break; sleep 0.01
done
p=http://127.0.0.1:${PROXY_PORT}
# The call's token as the proxy URL's password: its refusals are told to this call only.
[ -n "$token" ] && p=http://scv:$token@127.0.0.1:${PROXY_PORT}
export HTTP_PROXY=$p HTTPS_PROXY=$p http_proxy=$p https_proxy=$p
export ALL_PROXY=socks5h://127.0.0.1:${PROXY_PORT} all_proxy=socks5h://127.0.0.1:${PROXY_PORT}
unset NO_PROXY no_proxy
exec "$@"
`;

/**
 * The command line that starts the forwarder (socat at `socat` inside), then becomes `argv`;
 * `token` (hex) names the call in its HTTP proxy URL (`http://scv:<token>@...`), so that the
 * proxy tells its refusals to this call alone. Empty: no token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { forwarderArgv } from "./forwarder.ts";
 * const a = forwarderArgv("/usr/bin/socat", ["bash", "-c", "curl x"], "0123abcd");
 * assert.deepEqual(a.slice(-5), ["/usr/bin/socat", "0123abcd", "bash", "-c", "curl x"]);
 * ```
 */
export function forwarderArgv(socat: string, argv: readonly string[], token = ""): string[] {
  return ["bash", "-c", SCRIPT, "scv-net", socat, token, ...argv];
}
