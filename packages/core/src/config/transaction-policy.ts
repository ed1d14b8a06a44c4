/**
 * Whether a model is decoupled (model_transaction_policy { decoupled: true }): it answers each request
 * with 0..n responses, the last one flagged final. Read by the server's front ends, BLS, the tracer and
 * the dashboard; typed loosely so a config as JSON (the dashboard's snapshot) reads the same.
 */
export const isDecoupled = (config: { model_transaction_policy?: unknown }): boolean =>
  (config.model_transaction_policy as { decoupled?: unknown } | undefined)?.decoupled === true;
