/**
 * Limits the study page and the server agree on, in a module with no imports, so the page
 * can read them without bundling anything of the server's.
 */

/**
 * Longest replay (JSON characters) a left episode may bring. The page sends it while the
 * page unloads, in a keepalive request, and browsers cap those at 64 KiB.
 */
export const ABANDONED_REPLAY_MAX = 60_000;
