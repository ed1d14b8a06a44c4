/**
 * The rule both kinds of instance (onnxruntime worker threads, stub processes) follow when they end with
 * batches still owed. They take their batches one at a time, in order, so when one dies only the oldest
 * owed batch can have begun: it fails with the cause; the ones queued behind it never began and fail
 * with NotStartedError, which the owner may send again to a replacement (exactly once). Those are failed
 * first, so whatever they are sent on to lands ahead of work the owner hands out on hearing of the first.
 */

/** A batch that was queued on an instance that died before beginning it: safe to run again elsewhere. */
export class NotStartedError extends Error {
  readonly notStarted = true;
}

export function failOwed(owed: readonly ((error: Error) => void)[], error: Error, died: boolean, label: string): void {
  if (died && owed.length > 1) {
    const notStarted = new NotStartedError(`instance ${label} died before it began this batch`);
    for (const p of owed.slice(1)) p(notStarted);
    owed[0](error);
    return;
  }
  for (const p of owed) p(error);
}
