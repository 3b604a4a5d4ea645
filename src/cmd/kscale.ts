#!/usr/bin/env node
/** The kscale command: one binary, one subcommand per component, like k3s. */
import { Command } from 'commander';
import { serverCommand } from './server.js';
import { controllerManagerCommand } from './controller_manager.js';
import { nodesCommand } from './nodes.js';
import { schedulerCommand } from './scheduler.js';
import { labCommand, upCommand } from './lab.js';
import { proxyCommand } from './proxy.js';
import { storageCommand } from './storage.js';
import { runMain } from './exit.js';
import { versionLine } from './version.js';
import { planCommand } from './plan.js';
import { certsCommand } from './certs.js';
import { loadCommand } from './load.js';

const program = new Command('kscale')
  .description('a Kubernetes-compatible control plane built for thousands of nodes')
  .option('-V, --version', 'print the version and commit');
// Asked for lazily: every component process starts through here, and only --version needs git.
program.on('option:version', () => {
  process.stdout.write(`${versionLine()}\n`);
  process.exit(0);
});
program.addCommand(serverCommand());
program.addCommand(controllerManagerCommand());
program.addCommand(nodesCommand());
program.addCommand(schedulerCommand());
program.addCommand(upCommand());
program.addCommand(labCommand());
program.addCommand(proxyCommand());
program.addCommand(storageCommand());
program.addCommand(planCommand());
program.addCommand(certsCommand());
program.addCommand(loadCommand());
await runMain(program);
