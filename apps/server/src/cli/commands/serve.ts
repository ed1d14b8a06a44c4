/**
 * `inferscope serve`: load a model repository and serve KServe v2 over HTTP, the dashboard at `/`, the
 * live gateway on the same port and Prometheus metrics on --metrics-port. SIGINT/SIGTERM shut down
 * gracefully: stop accepting, answer every accepted request, unload models, exit, within a bound whatever
 * the models do (cli/bounded-shutdown.ts). A second signal exits at once.
 */
import type { Command } from '../command';
import { parseServeArgs, OptionsError, DEFAULTS } from '../../server-options';
import { checkBindSecurity, CONTROL_TOKEN_ENV } from '../../control/security';
import { watchParent } from '../../child-process/parent-watch';
import { boundedShutdown } from '../bounded-shutdown';

const help = `Usage: inferscope serve --model-repository PATH[,PATH...] [options]

Serves the models of one or more Triton model repositories over the KServe v2 HTTP protocol, with the
live dashboard at http://HOST:PORT/ and Prometheus metrics at http://HOST:METRICS-PORT/metrics.

Options:
  --model-repository P[,P...]   repository folder(s); repeatable. A model found in two is UNAVAILABLE.
  --model-control-mode MODE     none (load everything at start, default), poll (also pick up added,
                                changed and removed models) or explicit (load only --load-model and
                                what POST /v2/repository/models/M/load asks for)
  --load-model M                explicit mode: load M at start; repeatable; '*' loads every model
  --repository-poll-secs N      poll mode: seconds between scans (default ${DEFAULTS.repositoryPollSecs})
  --http-port N                 HTTP port (default ${DEFAULTS.httpPort}; 0 = any free port)
  --metrics-port N              Prometheus port (default ${DEFAULTS.metricsPort}); --no-metrics to disable
  --grpc-port N                 gRPC port, Triton's GRPCInferenceService (default ${DEFAULTS.grpcPort}; 0 = any free
                                port); --no-grpc to disable
  --host H                      address to bind (default ${DEFAULTS.host}); any other address needs a
                                control token or --allow-open-control
  --memory-budget SIZE          per-device budget, e.g. 4GiB (cpu) or cpu:4GiB,gpu0:8GiB; loads that
                                would exceed it are refused
  --control-token T             live control needs this token (or set ${CONTROL_TOKEN_ENV});
                                other dashboard clients are viewers
  --allow-open-control          accept a non-loopback bind without a token
  --gpus N                      GPUs to assume (default: detected)
  --http-max-input-size BYTES   largest inference request body (default 64 MiB)
  --max-inflight-bytes SIZE     inference requests held at once, bodies and decoded tensors (default
                                min(1GiB, memory/4)); above it requests are refused with 503 (gRPC:
                                UNAVAILABLE) before their bytes are read; also the largest frame a
                                python/pytorch stub may send
  --web-dist DIR                built dashboard to serve (default apps/web/dist)
  --recordings-dir DIR          where load recordings are written (default ./recordings)
  --log-requests                log every HTTP request
  --strict-readiness BOOL       ready only while every model is READY (default true, as Triton); false:
                                ready whenever the server accepts requests
  --log-file PATH               write the server log to PATH (not changeable over the network)
  --log-format default|ISO8601  log line format (changeable live: POST /v2/logging)
  --trace-config SETTING        Triton's trace settings, repeatable: level=TIMESTAMPS, rate=N, count=N,
                                triton,file=PATH, triton,log-frequency=N (changeable live except the file:
                                POST /v2/trace/setting, /v2/models/M/trace/setting)
  --python PATH                 interpreter of the pytorch/python backend stubs (default: $INFERSCOPE_PYTHON,
                                else /usr/bin/python3, where Debian's python3-torch installs)
  --torch-stub auto|native|python  what runs pytorch models: auto (default) the native libtorch stub
                                where it is built (npm install builds it), else the Python stub
  --load-max-rate N             most requests/s one load run may schedule (default 20000)
  --load-max-requests N         most requests one load run may send (default 5000000)
  --load-max-in-flight N        most requests a load run keeps unanswered (default 10000)
  --exit-timeout-secs N         on SIGINT/SIGTERM, seconds to wait for in-flight requests before the model
                                instances still running them are stopped (default ${DEFAULTS.exitTimeoutSecs})
  --handshake-timeout-secs N    a new connection that has not sent its first request head (HTTP, metrics,
                                Socket.IO) or finished its HTTP/2 handshake (gRPC) in N s is closed
                                (default ${DEFAULTS.handshakeTimeoutSecs})
  --idle-timeout-secs N         an HTTP connection between requests, or a gRPC connection without a call,
                                is closed after N s (default ${DEFAULTS.idleTimeoutSecs}), and a request body or gRPC message
                                that stops arriving for N s is given up; calls being served and websockets
                                are never cut
  --cache-config local,size=N   Triton's response cache: one LRU buffer of N bytes shared by every model
                                whose config says response_cache { enable: true } (README: the key)
  --response-cache-byte-size N  deprecated (Triton's too): the same as --cache-config local,size=N
  --rate-limit off|execution_count  off (default): instances run batches as soon as they are free;
                                execution_count: only when the instance_group rate_limiter resources are free,
                                the least executions x priority first
  --rate-limit-resource NAME:COUNT[:DEVICE]  copies of a resource (repeatable; default: the largest need
                                any instance declares; no DEVICE = every device)

Examples:
  inferscope serve --model-repository model_repository
  inferscope serve --model-repository model_repository --model-control-mode explicit --load-model mlp_classifier
`;

const command: Command = {
  name: ['serve'],
  summary: 'serve a model repository over KServe v2 HTTP with the live dashboard',
  help,
  async run(argv) {
    let options;
    try {
      options = parseServeArgs(argv);
      checkBindSecurity(options.host, options.controlToken, options.allowOpenControl);
    } catch (err) {
      if (err instanceof OptionsError || err instanceof Error) {
        console.error(`inferscope serve: ${err.message}`);
        return 2;
      }
      throw err;
    }
    const log = (msg: string) => console.log(`[inferscope] ${msg}`);
    for (const warning of options.startupWarnings) console.error(warning);
    // Imported here so `serve --help` and option errors do not pay for loading onnxruntime.
    const { buildApp } = await import('../../app');
    const server = await buildApp({ ...options, log });
    let shuttingDown = false;
    const done = new Promise<number>((resolve) => {
      const stop = (signal: string) => {
        if (shuttingDown) {
          log(`${signal} again: exiting without waiting`);
          process.exit(130);
        }
        shuttingDown = true;
        log(`${signal}: draining in-flight requests and unloading models ...`);
        void boundedShutdown(signal, { exitTimeoutSecs: options.exitTimeoutSecs, close: () => server.close() }).then((code) => {
          if (code === 0) log('stopped');
          resolve(code);
        });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      // Started by the launcher or a fleet: never outlive it (a SIGKILLed parent cannot forward signals).
      watchParent(() => stop('parent process gone'));
    });
    try {
      const { url, metricsUrl, grpcAddress } = await server.listen();
      for (const row of server.manager.index()) {
        log(`model ${row.name}${row.version ? ':' + row.version : ''} ${row.state ?? 'not loaded'}${row.reason ? ` (${row.reason})` : ''}`);
      }
      log(`serving KServe v2 and the dashboard on ${url}${metricsUrl ? `, metrics on ${metricsUrl}` : ''}`);
      // its own line: launchers (fleet) parse the line above
      if (grpcAddress) log(`serving gRPC (inference.GRPCInferenceService) on ${grpcAddress}`);
    } catch (err) {
      console.error(`inferscope serve: cannot listen: ${(err as Error).message}`);
      await server.close();
      return 1;
    }
    return done;
  },
};

export default command;
