/**
 * `inferscope fleet`: N replicas of `inferscope serve` behind Debian's HAProxy, scraped by Debian's
 * Prometheus, on this machine. Ctrl-C stops everything.
 */
import { parseArgs } from 'node:util';
import type { Command } from '../command';

const help = `Usage: inferscope fleet [options]

Starts N InferScope replicas on free loopback ports, HAProxy in front of them (health checks on
/v2/health/ready; a replica that dies leaves the rotation within two check intervals) and Prometheus
scraping every replica, with the queue-pressure rule the Kubernetes autoscaler uses (deploy/).
Needs Debian's haproxy and prometheus packages.

Options:
  --replicas N               replicas to start (default 2)
  --model-repository P       repository for every replica (default model_repository)
  --port N                   the load balancer's port (default 8000; 0 = any free port)
  --host H                   address for everything (default 127.0.0.1)
  --no-prometheus            do not start Prometheus
  --scrape-interval SECS     Prometheus scrape interval (default 1)
  --check-interval-ms MS     HAProxy health check interval (default 1000)
  --serve-arg ARG            extra argument for every replica's \`serve\`; repeatable
                             (e.g. --serve-arg=--model-control-mode --serve-arg=explicit)

Example:
  inferscope fleet --replicas 3
  inferscope perf -m mlp_classifier -u 127.0.0.1:8000 --concurrency-range 32
`;

const command: Command = {
  name: ['fleet'],
  summary: 'run N replicas behind HAProxy with Prometheus on this machine',
  help,
  async run(argv) {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        strict: true,
        options: {
          replicas: { type: 'string', default: '2' },
          'model-repository': { type: 'string', default: 'model_repository' },
          port: { type: 'string', default: '8000' },
          host: { type: 'string', default: '127.0.0.1' },
          'no-prometheus': { type: 'boolean', default: false },
          'scrape-interval': { type: 'string', default: '1' },
          'check-interval-ms': { type: 'string', default: '1000' },
          'serve-arg': { type: 'string', multiple: true, default: [] },
        },
      }));
    } catch (err) {
      console.error(`inferscope fleet: ${(err as Error).message}`);
      return 2;
    }
    const num = (name: string, v: string, min: number) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got '${v}'`);
      return n;
    };
    const log = (line: string) => console.log(line);
    const { startFleet } = await import('../../fleet/fleet');
    let fleet;
    try {
      fleet = await startFleet({
        replicas: num('replicas', values.replicas, 1),
        modelRepositories: [values['model-repository']],
        port: num('port', values.port, 0),
        host: values.host,
        prometheus: !values['no-prometheus'],
        scrapeIntervalSec: num('scrape-interval', values['scrape-interval'], 1),
        checkIntervalMs: num('check-interval-ms', values['check-interval-ms'], 100),
        serveArgs: values['serve-arg'],
        log,
      });
    } catch (err) {
      console.error(`inferscope fleet: ${(err as Error).message}`);
      return 1;
    }
    log(`[fleet] load balancer ${fleet.url} (HAProxy stats ${fleet.statsUrl})`);
    for (const r of fleet.replicas) log(`[fleet] ${r.name} ${r.url} metrics :${r.metricsPort}`);
    if (fleet.prometheusUrl) log(`[fleet] Prometheus ${fleet.prometheusUrl}`);
    await new Promise<void>((resolve) => {
      const stop = (sig: string) => {
        log(`[fleet] ${sig}: stopping replicas, HAProxy and Prometheus ...`);
        fleet.stop().then(resolve, resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    log('[fleet] stopped');
    return 0;
  },
};

export default command;
