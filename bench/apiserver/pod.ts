/**
 * The Pod the benchmark writes: about 2 KB of JSON, shaped like a real
 * Deployment's pod (labels, owner reference, two containers with env,
 * resources, probes and mounts), so encode and decode costs are realistic.
 */

/** The namespace every benchmark object lives in. */
export const NAMESPACE = 'bench';

/** A ~2 KB Pod manifest named `name`. */
export function podManifest(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: {
        app: 'bench-web',
        tier: 'frontend',
        'pod-template-hash': '7c9f8d6b5d',
        release: 'stable',
        team: 'scale',
      },
      annotations: {
        'bench.kscale.io/seq': '0',
        'kubernetes.io/description': 'a pod of the kscale API server benchmark',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'bench-web-7c9f8d6b5d',
          uid: '3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.k8s.io/nginx-slim:0.27',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'CACHE_SIZE_MB', value: '256' },
            { name: 'UPSTREAM_URL', value: 'http://bench-api.bench.svc.cluster.local:8080' },
            { name: 'FEATURE_FLAGS', value: 'alpha,beta,gamma' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10, timeoutSeconds: 1 },
          livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 15, periodSeconds: 20 },
          securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false },
          volumeMounts: [
            { name: 'config', mountPath: '/etc/web', readOnly: true },
            { name: 'cache', mountPath: '/var/cache/web' },
          ],
        },
        {
          name: 'sidecar',
          image: 'registry.k8s.io/pause:3.10',
          args: ['--metrics-port=9090', '--verbose=false'],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '50m', memory: '32Mi' } },
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'bench-web-config' } },
        { name: 'cache', emptyDir: {} },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      terminationGracePeriodSeconds: 30,
    },
  };
}
