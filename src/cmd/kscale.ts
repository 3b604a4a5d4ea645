#!/usr/bin/env node
/** The kscale command: one binary, one subcommand per component, like k3s. */
import { Command } from 'commander';
import { serverCommand } from './server.js';

const program = new Command('kscale').description('a Kubernetes-compatible control plane built for thousands of nodes');
program.addCommand(serverCommand());
await program.parseAsync(process.argv);
