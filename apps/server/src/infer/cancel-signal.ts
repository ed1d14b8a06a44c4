/** What cancellation needs of a signal: whether it fired, and one listener for when it does. */
export interface CancelSignal {
  readonly aborted: boolean;
  /** Calls `fn` once when the signal fires (never if it already has); returns a function that stops it. */
  onAbort(fn: () => void): () => void;
}
