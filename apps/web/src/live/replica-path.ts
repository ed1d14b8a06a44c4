/**
 * `?replica=NAME` (the fleet view's "open" link): this page's live socket goes to that replica through the
 * balancer's per-replica prefix instead of to whichever replica the balancer picks. Read once at start,
 * because the URL-state writer keeps only its own fields.
 */
const REPLICA = typeof location === 'undefined' ? null : new URLSearchParams(location.search).get('replica');

/** Names as `inferscope fleet` gives them; anything else is ignored rather than put into a path. */
export const replicaName: string | null = REPLICA && /^[A-Za-z0-9_.-]{1,64}$/.test(REPLICA) ? REPLICA : null;

export const socketPath = (): string | undefined => (replicaName ? `/replica/${replicaName}/socket.io` : undefined);
