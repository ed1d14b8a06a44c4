/**
 * `inferscope fleet`: N replicas of `inferscope serve` behind Debian's HAProxy, scraped by Debian's
 * Prometheus, on this machine. Ctrl-C stops everything.
 */
import { numberArg, parseArgs } from '../../args/args';
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
    let options;
    try {
      const a = parseArgs(argv, [
        { names: ['--replicas'], key: 'replicas' },
        { names: ['--model-repository'], key: 'repository' },
        { names: ['--port'], key: 'port' },
        { names: ['--host'], key: 'host' },
        { names: ['--no-prometheus'], key: 'noPrometheus', flag: true },
        { names: ['--scrape-interval'], key: 'scrapeInterval' },
        { names: ['--check-interval-ms'], key: 'checkIntervalMs' },
        { names: ['--serve-arg'], key: 'serveArgs', repeat: true },
      ]);
      if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
      options = {
        replicas: numberArg(a.values.replicas, '--replicas', 2, { integer: true, min: 1 }),
        modelRepositories: [a.values.repository ?? 'model_repository'],
        port: numberArg(a.values.port, '--port', 8000, { integer: true, min: 0, max: 65535 }),
        host: a.values.host ?? '127.0.0.1',
        prometheus: !a.flags.has('noPrometheus'),
        scrapeIntervalSec: numberArg(a.values.scrapeInterval, '--scrape-interval', 1, { integer: true, min: 1 }),
        checkIntervalMs: numberArg(a.values.checkIntervalMs, '--check-interval-ms', 1000, { integer: true, min: 100 }),
        serveArgs: a.lists.serveArgs,
      };
    } catch (err) {
      console.error(`inferscope fleet: ${(err as Error).message}`);
      return 2;
    }
    const log = (line: string) => console.log(line);
    const { startFleet } = await import('../../fleet/fleet');
    let fleet;
    try {
      fleet = await startFleet({ ...options, log });
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
