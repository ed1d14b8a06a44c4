/**
 * InferScope on Kubernetes, as typed objects (kubernetes-models: the types and validators come from
 * Kubernetes' own OpenAPI schemas), printed to YAML by `npm run deploy:generate`. The committed YAML is
 * checked against this code by test/fleet/manifests.test.ts, so the two cannot drift.
 *
 * What it deploys: a Deployment of InferScope replicas (readiness on Triton's /v2/health/ready, liveness
 * on /v2/health/live, the model repository from a read-only volume, the control token from a Secret,
 * Prometheus scrape annotations), a Service for HTTP, gRPC and metrics, and a HorizontalPodAutoscaler on
 * queue pressure (mean queue time per request) served to the HPA by prometheus-adapter with the rule in
 * `adapterConfig()`.
 */
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { stringify } from 'yaml';
import { QUEUE_PRESSURE_METRIC, queuePressureQuery } from '../../apps/server/src/fleet/queue-pressure.ts';

export const NAME = 'inferscope';
export const PORTS = { http: 8000, grpc: 8001, metrics: 8002 } as const;
/** mean queue time per request (µs) that one replica is sized for; above it the HPA adds replicas */
export const TARGET_QUEUE_US = 5000;
/** the adapter's rate window: 4 or more Prometheus scrapes at the usual 15 s interval */
export const ADAPTER_WINDOW = '1m';

const labels = { 'app.kubernetes.io/name': NAME };

export function deployment(): Deployment {
  return new Deployment({
    metadata: { name: NAME, labels },
    spec: {
      // no `replicas`: the HorizontalPodAutoscaler below owns the count (a fixed one would fight it)
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels,
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(PORTS.metrics),
            'prometheus.io/path': '/metrics',
          },
        },
        spec: {
          // SIGTERM drains: stop accepting, answer every accepted request, unload. Give it the time.
          terminationGracePeriodSeconds: 60,
          containers: [{
            name: NAME,
            image: 'inferscope:0.1.0',
            args: ['serve', '--model-repository', '/models', '--host', '0.0.0.0',
              '--http-port', String(PORTS.http), '--grpc-port', String(PORTS.grpc), '--metrics-port', String(PORTS.metrics)],
            ports: [
              { name: 'http', containerPort: PORTS.http },
              { name: 'grpc', containerPort: PORTS.grpc },
              { name: 'metrics', containerPort: PORTS.metrics },
            ],
            env: [{
              // A non-loopback bind needs a control token (the server refuses to start open otherwise).
              name: 'INFERSCOPE_CONTROL_TOKEN',
              valueFrom: { secretKeyRef: { name: `${NAME}-control-token`, key: 'token' } },
            }],
            // Models load before the server listens; the startup probe gives them time before liveness counts.
            startupProbe: { httpGet: { path: '/v2/health/live', port: 'http' }, periodSeconds: 2, failureThreshold: 60 },
            readinessProbe: { httpGet: { path: '/v2/health/ready', port: 'http' }, periodSeconds: 2, failureThreshold: 2 },
            livenessProbe: { httpGet: { path: '/v2/health/live', port: 'http' }, periodSeconds: 10, failureThreshold: 3 },
            // Instances x intra-op threads must not exceed the cores the pod gets (2 here, as on the
            // machine the bundled configs are tuned for).
            resources: { requests: { cpu: '2', memory: '2Gi' }, limits: { cpu: '2', memory: '4Gi' } },
            volumeMounts: [{ name: 'models', mountPath: '/models', readOnly: true }],
          }],
          volumes: [{ name: 'models', persistentVolumeClaim: { claimName: `${NAME}-models`, readOnly: true } }],
        },
      },
    },
  });
}

export function service(): Service {
  return new Service({
    metadata: { name: NAME, labels },
    spec: {
      selector: labels,
      ports: Object.entries(PORTS).map(([name, port]) => ({ name, port, targetPort: name })),
    },
  });
}

export function autoscaler(): HorizontalPodAutoscaler {
  return new HorizontalPodAutoscaler({
    metadata: { name: NAME, labels },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: NAME },
      minReplicas: 1,
      maxReplicas: 8,
      metrics: [{
        type: 'Pods',
        pods: { metric: { name: QUEUE_PRESSURE_METRIC }, target: { type: 'AverageValue', averageValue: String(TARGET_QUEUE_US) } },
      }],
      // Scale up quickly (queues grow fast), down slowly (a model load costs seconds).
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 2, periodSeconds: 30 }] },
        scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
      },
    },
  });
}

/** prometheus-adapter's custom-metrics rule: per pod, the queue-pressure query over ADAPTER_WINDOW. */
export function adapterRule() {
  return {
    seriesQuery: 'nv_inference_queue_duration_us{namespace!="",pod!=""}',
    resources: { overrides: { namespace: { resource: 'namespace' }, pod: { resource: 'pod' } } },
    name: { matches: '^nv_inference_queue_duration_us$', as: QUEUE_PRESSURE_METRIC },
    metricsQuery: queuePressureQuery(ADAPTER_WINDOW, '<<.LabelMatchers>>', '<<.GroupBy>>'),
  };
}

/** The adapter's config file as a ConfigMap (mount it as prometheus-adapter's --config). */
export function adapterConfig(): ConfigMap {
  return new ConfigMap({
    metadata: { name: `${NAME}-prometheus-adapter`, labels },
    data: { 'config.yaml': stringify({ rules: [adapterRule()] }) },
  });
}

export function allObjects() {
  return [deployment(), service(), autoscaler(), adapterConfig()];
}

/** Multi-document YAML of every object, each validated against Kubernetes' schema first. */
export function renderManifests(): string {
  const header = '# generated by `npm run deploy:generate` from deploy/kubernetes/manifests.ts: edit that file\n';
  return header + allObjects().map((o) => {
    o.validate();
    return stringify(o.toJSON());
  }).join('---\n');
}
