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

const program = new Command('kscale').description('a Kubernetes-compatible control plane built for thousands of nodes');
program.addCommand(serverCommand());
program.addCommand(controllerManagerCommand());
program.addCommand(nodesCommand());
program.addCommand(schedulerCommand());
program.addCommand(upCommand());
program.addCommand(labCommand());
program.addCommand(proxyCommand());
program.addCommand(storageCommand());
await program.parseAsync(process.argv);
