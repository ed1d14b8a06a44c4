/**
 * A fleet on one machine with real parts: N InferScope replicas (separate processes), Debian's HAProxy in
 * front of them with health checks on `/v2/health/ready`, and Debian's Prometheus scraping every replica
 * and recording the queue-pressure signal the Kubernetes HPA scales on (deploy/kubernetes). Everything
 * runs in a private temporary folder and stops cleanly (SIGTERM, then SIGKILL after a grace period).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from './free-port';
import { renderHaproxyConfig, replicaPrefix } from './haproxy-config';
import { renderPrometheusConfig, renderPrometheusRules } from './prometheus-config';
import { SupervisedProcess } from './supervised-process';
import { PARENT_PID_ENV } from '../child-process/parent-watch';
import { removeStaleFolders } from '../repository/private-folders';
import { processAlive } from '../child-process/process-alive';

export interface FleetOptions {
  replicas: number;
  modelRepositories: string[];
  /** extra `inferscope serve` arguments for every replica (e.g. explicit mode and --load-model) */
  serveArgs?: string[];
  host?: string;
  /** the load balancer's port (0 = a free one) */
  port?: number;
  prometheus?: boolean;
  scrapeIntervalSec?: number;
  /** window of the recorded queue-pressure rule */
  pressureWindow?: string;
  checkIntervalMs?: number;
  log?(line: string): void;
  haproxyBin?: string;
  prometheusBin?: string;
}

/** What the balancer serves at /fleet.json: how the dashboard's fleet view reaches each replica. */
export interface FleetDescription {
  replicas: Array<{ name: string; /** prefix through the balancer */ path: string; /** the replica itself */ url: string }>;
}

export interface Replica {
  name: string;
  url: string;
  port: number;
  metricsPort: number;
  process: SupervisedProcess;
}

export interface Fleet {
  url: string;
  statsUrl: string;
  prometheusUrl: string | null;
  replicas: Replica[];
  checkIntervalMs: number;
  /** SIGKILL one replica (what a crash or an evicted pod looks like to the balancer) */
  killReplica(i: number): Promise<void>;
  /** start a stopped replica again on the same ports */
  restartReplica(i: number): Promise<void>;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);
const CLI = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const GUARD = fileURLToPath(new URL('./orphan-guard.ts', import.meta.url));
/** A supervisor's temp folder carries its pid, so the next run removes the folder of one that was killed. */
const FLEET_DIR_PREFIX = 'inferscope-fleet-';
const FLEET_OWNED = /^inferscope-fleet-(\d+)-[A-Za-z0-9]{6}$/;
const SERVING = /serving KServe v2 and the dashboard on (http:\/\/\S+?)(?:, metrics on (http:\/\/\S+))?$/;

/** Throws with the Debian package to install when a binary is missing. */
export function requireBinary(bin: string, pkg: string): void {
  const r = spawnSync(bin, ['--version'], { stdio: 'ignore' });
  if (r.error) throw new Error(`${bin} not found: install Debian's ${pkg} (apt-get install -y ${pkg})`);
}

export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const host = o.host ?? '127.0.0.1';
  const log = o.log ?? ((line: string) => console.log(line));
  const haproxyBin = o.haproxyBin ?? 'haproxy';
  const prometheusBin = o.prometheusBin ?? 'prometheus';
  const checkIntervalMs = o.checkIntervalMs ?? 1000;
  const scrape = o.scrapeIntervalSec ?? 1;
  if (!Number.isInteger(o.replicas) || o.replicas < 1 || o.replicas > 32) throw new Error(`--replicas must be 1..32, got ${o.replicas}`);
  const stale = await removeStaleFolders(tmpdir(), processAlive, FLEET_OWNED);
  if (stale.length > 0) log(`removed ${stale.length} temp folder(s) of fleet supervisors that were killed: ${stale.join(', ')}`);
  requireBinary(haproxyBin, 'haproxy');
  if (o.prometheus !== false) requireBinary(prometheusBin, 'prometheus');

  const dir = await mkdtemp(join(tmpdir(), `${FLEET_DIR_PREFIX}${process.pid}-`));
  const parts: SupervisedProcess[] = [];
  const replicas: Replica[] = [];
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  // Every child dies with the supervisor, even a SIGKILLed one: replicas watch it themselves
  // (child-process/parent-watch.ts), HAProxy and Prometheus run under orphan-guard.ts, which does it for them.
  const childEnv = { ...process.env, [PARENT_PID_ENV]: String(process.pid) };
  const guarded = (name: string, bin: string, args: string[]) =>
    new SupervisedProcess({ name, command: process.execPath, args: ['--import', tsx, GUARD, bin, ...args], env: childEnv, log });

  const startReplica = async (name: string, httpPort: number, metricsPort: number) => {
    const args = ['--import', tsx, CLI, 'serve', '--model-repository', o.modelRepositories.join(','), '--host', host,
      // each replica its own free gRPC port (the CLI's default, 8001, would collide)
      '--http-port', String(httpPort), '--metrics-port', String(metricsPort), '--grpc-port', '0', '--recordings-dir', join(dir, name, 'recordings'),
      ...(o.serveArgs ?? [])];
    const p = new SupervisedProcess({ name, command: process.execPath, args, env: childEnv, log });
    const m = await p.waitForLine(SERVING, 120_000);
    return { p, url: m[1], metricsPort: m[2] ? Number(new URL(m[2]).port) : 0 };
  };

  const stopAll = async () => {
    await Promise.all([...parts, ...replicas.map((r) => r.process)].map((p) => p.stop()));
    await rm(dir, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < o.replicas; i++) {
      const name = `replica-${i}`;
      const { p, url, metricsPort } = await startReplica(name, 0, 0);
      replicas.push({ name, url, port: Number(new URL(url).port), metricsPort, process: p });
    }
    const lbPort = o.port || (await freePort(host));
    const statsPort = await freePort(host);
    const cfg = join(dir, 'haproxy.cfg');
    const fleetJsonFile = join(dir, 'fleet.json');
    const description: FleetDescription = { replicas: replicas.map((r) => ({ name: r.name, path: replicaPrefix(r.name), url: r.url })) };
    await writeFile(fleetJsonFile, JSON.stringify(description));
    await writeFile(cfg, renderHaproxyConfig({
      bindHost: host, bindPort: lbPort, statsPort, checkIntervalMs, fall: 2, rise: 2, fleetJsonFile,
      replicas: replicas.map((r) => ({ name: r.name, host, port: r.port })),
    }));
    // -db: stay in the foreground (the fleet supervises it); -W would fork a master we do not see.
    const haproxy = guarded('haproxy', haproxyBin, ['-db', '-f', cfg]);
    parts.push(haproxy);
    await waitForHttp(`http://${host}:${statsPort}/stats`, 15_000, haproxy);

    let prometheusUrl: string | null = null;
    if (o.prometheus !== false) {
      const promPort = await freePort(host);
      const rules = join(dir, 'rules.yml');
      await writeFile(rules, renderPrometheusRules(o.pressureWindow ?? '30s'));
      await writeFile(join(dir, 'prometheus.yml'), renderPrometheusConfig({
        targets: replicas.map((r) => ({ replica: r.name, host, port: r.metricsPort })),
        scrapeIntervalSec: scrape, window: o.pressureWindow ?? '30s', rulesFile: rules,
      }));
      const prom = guarded('prometheus', prometheusBin, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`,
        `--web.listen-address=${host}:${promPort}`, '--log.level=warn']);
      parts.push(prom);
      prometheusUrl = `http://${host}:${promPort}`;
      await waitForHttp(`${prometheusUrl}/-/ready`, 30_000, prom);
    }

    return {
      url: `http://${host}:${lbPort}`,
      statsUrl: `http://${host}:${statsPort}/stats`,
      prometheusUrl,
      replicas,
      checkIntervalMs,
      async killReplica(i) {
        await replicas[i].process.kill();
      },
      async restartReplica(i) {
        const r = replicas[i];
        if (r.process.running) throw new Error(`${r.name} is still running`);
        const { p } = await startReplica(r.name, r.port, r.metricsPort);
        r.process = p;
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Polls `url` until it answers 200, the process exits, or time runs out. */
async function waitForHttp(url: string, timeoutMs: number, p: SupervisedProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!p.running) throw new Error(`${p.spec.name} exited before it was ready (see its log lines above)`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.spec.name} did not answer ${url} within ${timeoutMs} ms`);
}
