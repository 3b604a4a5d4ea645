// Lint: typescript-eslint's type-aware recommended rules; floating promises are errors.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'eslint.config.js'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // Its autofix strips casts that other files' types still need; tsc is the judge of types.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  // One source of API types (issue 22): the kinds are declared in src/api only; components use them, or Pick<> of them.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/api/**', 'src/storage/**'],
    rules: { 'no-restricted-syntax': ['error', ...apiKindDeclarations()] },
  },
  // Every other layer reaches src/api through its index only.
  {
    files: ['src/{apiserver,storage,kubelet,scheduler,controller,proxy,lab,client,cmd}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: String.raw`(^|/)api/(?!index\.js$)`, message: 'Import src/api through src/api/index.js.' },
          ],
        },
      ],
    },
  },
);

/** no-restricted-syntax entries that forbid an interface or type alias named like an API kind outside src/api. */
function apiKindDeclarations() {
  const kinds = [
    'Pod',
    'PodSpec',
    'PodStatus',
    'PodCondition',
    'PodTemplateSpec',
    'Container',
    'ContainerPort',
    'ContainerStatus',
    'ContainerState',
    'Node',
    'NodeSpec',
    'NodeStatus',
    'NodeCondition',
    'NodeAddress',
    'Taint',
    'Toleration',
    'Affinity',
    'NodeAffinity',
    'PodAffinity',
    'PodAntiAffinity',
    'PodAffinityTerm',
    'WeightedPodAffinityTerm',
    'NodeSelector',
    'NodeSelectorTerm',
    'NodeSelectorRequirement',
    'TopologySpreadConstraint',
    'ResourceRequirements',
    'Lease',
    'LeaseSpec',
    'Service',
    'ServiceSpec',
    'ServicePort',
    'Endpoints',
    'EndpointSubset',
    'EndpointAddress',
    'EndpointSlice',
    'EndpointPort',
    'EndpointConditions',
    'Namespace',
    'Event',
    'ConfigMap',
    'Secret',
    'Deployment',
    'DeploymentSpec',
    'DeploymentStatus',
    'DeploymentStrategy',
    'DeploymentCondition',
    'ReplicaSet',
    'ReplicaSetSpec',
    'ReplicaSetStatus',
    'ReplicaSetCondition',
    'Job',
    'JobSpec',
    'JobStatus',
    'JobCondition',
    'PodDisruptionBudget',
    'PriorityClass',
    'ObjectMeta',
    'OwnerReference',
    'ObjectReference',
    'LabelSelector',
    'LabelSelectorRequirement',
  ];
  const names = `/^(${kinds.join('|')})$/`;
  const message =
    'API kinds are declared once, in src/api: import them from src/api/index.js (Pick<> for a slim view).';
  return [
    { selector: `TSInterfaceDeclaration[id.name=${names}]`, message },
    { selector: `TSTypeAliasDeclaration[id.name=${names}]`, message },
  ];
}
