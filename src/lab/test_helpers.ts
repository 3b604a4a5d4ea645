/** What the lab's command-line tests share: a run directory the command lines name (nothing is written there). */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUN = join(tmpdir(), 'lab-run');

export const paths = {
  dataDir: RUN,
  kubeconfig: `${RUN}/kubeconfig`,
  superAdminKubeconfig: `${RUN}/super-admin.conf`,
  componentsDir: `${RUN}/components`,
};

/** The value after `flag` in a command line, or undefined when the flag is absent. */
export const flagValue = (args: string[], flag: string): string | undefined =>
  args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined;
