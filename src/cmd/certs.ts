/**
 * `kscale certs`: one PKI for several API servers and an etcd cluster (kubeadm's
 * `init phase certs` plus the shared /etc/kubernetes/pki of an HA control
 * plane). Copy the directory to each server machine and pass it as
 * `--cert-dir`; docs/ha.md has the recipe.
 */
import { Command, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { createClusterPKI, parseEtcdMember, type EtcdMemberNames } from '../apiserver/pki/cluster_pki.js';

const repeat =
  <T>(parse: (v: string) => T) =>
  (v: string, prev: T[]): T[] => {
    try {
      return [...prev, parse(v)];
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };

/** Adds the `certs` subcommand. */
export function certsCommand(): Command {
  return new Command('certs')
    .description('make one PKI for several API servers and an etcd cluster (copy the directory to each server)')
    .requiredOption('--cert-dir <dir>', "the directory to fill: every server's --cert-dir")
    .option(
      '--tls-san <name>',
      "a name every server's serving certificate carries: the load balancer's, each server's (repeatable)",
      repeat((v) => v),
      [] as string[],
    )
    .option(
      '--etcd-member <name[=addrs]>',
      'an etcd member and its comma-separated IPs or DNS names, for its serving and peer certificate (repeatable)',
      repeat(parseEtcdMember),
      [] as EtcdMemberNames[],
    )
    .action(async (o: { certDir: string; tlsSan: string[]; etcdMember: EtcdMemberNames[] }) => {
      const files = await createClusterPKI({ dir: resolve(o.certDir), sans: o.tlsSan, etcdMembers: o.etcdMember });
      const lines = [
        `kscale certs: ${files.certDir}`,
        `  kscale server --cert-dir ${files.certDir} --service-account-signing-key-file ${files.serviceAccountKey}`,
        `    --etcd-cafile ${files.etcdCA} --etcd-certfile ${files.etcdClientCert} --etcd-keyfile ${files.etcdClientKey}`,
        ...files.etcdMembers.map(
          (m) =>
            `  etcd --name ${m.name} --cert-file ${m.cert} --key-file ${m.key} --peer-cert-file ${m.cert} --peer-key-file ${m.key} --trusted-ca-file ${files.etcdCA} --peer-trusted-ca-file ${files.etcdCA} --client-cert-auth --peer-client-cert-auth`,
        ),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
