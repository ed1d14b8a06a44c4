/**
 * Errors the ModelManager raises, with Triton's status codes (TRITONSERVER_Error_Code) so the HTTP layer
 * maps them the way Triton's http_server.cc does: NOT_FOUND 404, UNAVAILABLE 503, UNSUPPORTED 501,
 * INTERNAL 500, INVALID_ARG/ALREADY_EXISTS/UNKNOWN 400.
 */
export type TritonCode = 'NOT_FOUND' | 'UNAVAILABLE' | 'UNSUPPORTED' | 'INTERNAL' | 'INVALID_ARG' | 'ALREADY_EXISTS' | 'UNKNOWN';

export const HTTP_STATUS_OF: Record<TritonCode, number> = {
  NOT_FOUND: 404,
  UNAVAILABLE: 503,
  UNSUPPORTED: 501,
  INTERNAL: 500,
  INVALID_ARG: 400,
  ALREADY_EXISTS: 400,
  UNKNOWN: 400,
};

export class ManagerError extends Error {
  readonly httpStatus: number;
  constructor(
    readonly code: TritonCode,
    message: string,
  ) {
    super(message);
    this.name = 'ManagerError';
    this.httpStatus = HTTP_STATUS_OF[code];
  }
}

// Triton's wording, so users can search for the message. Triton prefixes lookup failures with
// "Request for unknown model: " (model repository manager) around the lifecycle's own message.
export const messages = {
  unknownModel: (m: string) => `Request for unknown model: '${m}' is not found`,
  unknownVersion: (m: string, v: number) => `Request for unknown model: '${m}' version ${v} is not found`,
  noAvailableVersion: (m: string) => `Request for unknown model: '${m}' has no available versions`,
  versionNotReady: (m: string, v: number) => `Request for unknown model: '${m}' version ${v} is not at ready state`,
  controlNotAllowed: () => 'explicit model load / unload is not allowed if polling is enabled',
  loadNotFound: (m: string) => `failed to load '${m}', failed to poll from model repository`,
  unloadNotServed: () => 'Model to be unloaded has not been served',
};
