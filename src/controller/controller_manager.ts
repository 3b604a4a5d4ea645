/**
 * Starting a set of controllers the way kube-controller-manager's
 * StartControllers does: build every enabled controller (they register
 * informer handlers), start the shared informers, wait for their caches,
 * then run the controllers. Stopping reverses it.
 */
import { EventBroadcaster } from '../client/index.js';
import type { Controller, ControllerContext } from './controller_context.js';
import { isControllerEnabled, validateControllers, type ControllerDescriptor } from './controller_descriptor.js';

/** Running controllers. */
export interface RunningControllers {
  controllers: Controller[];
  /** Looks a running controller up by name. */
  get<T extends Controller>(name: string): T | undefined;
  /** True when every controller is idle. */
  isIdle(): boolean;
  stop(): Promise<void>;
}

/** Builds and runs the enabled controllers; throws on an unknown --controllers entry or a cache that never syncs. */
export async function startControllers(
  ctx: ControllerContext,
  descriptors: readonly ControllerDescriptor[],
  enabled: readonly string[] = ['*'],
  signal?: AbortSignal,
): Promise<RunningControllers> {
  validateControllers(descriptors, enabled);
  const controllers: Controller[] = [];
  const broadcasters: EventBroadcaster[] = [];
  await ctx.clientBuilder?.prepare?.(descriptors.filter((d) => isControllerEnabled(d, enabled)).map((d) => d.name));
  for (const d of descriptors) {
    if (!isControllerEnabled(d, enabled)) {
      ctx.logger.info({ controller: d.name }, 'controller is disabled');
      continue;
    }
    controllers.push(
      d.init(ctx.clientBuilder === undefined ? ctx : ownClient(ctx, ctx.clientBuilder.client(d.name), broadcasters)),
    );
  }
  ctx.informers.start();
  if (!(await ctx.informers.waitForCacheSync(signal))) {
    await ctx.informers.shutdown();
    throw new Error('informer caches did not sync');
  }
  for (const c of controllers) {
    c.run();
    ctx.logger.info({ controller: c.name }, 'started controller');
  }
  return {
    controllers,
    get: <T extends Controller>(name: string) => controllers.find((c) => c.name === name) as T | undefined,
    isIdle: () => controllers.every((c) => c.isIdle()),
    async stop() {
      await Promise.all(controllers.map((c) => c.stop()));
      await Promise.all(broadcasters.map((b) => b.shutdown()));
      await ctx.informers.shutdown();
    },
  };
}

/** The context one controller sees with a client of its own, and an EventBroadcaster on that client. */
function ownClient(
  ctx: ControllerContext,
  client: ControllerContext['client'],
  broadcasters: EventBroadcaster[],
): ControllerContext {
  const events = new EventBroadcaster(client, { clock: ctx.clock, logger: ctx.logger });
  broadcasters.push(events);
  return { ...ctx, client, events };
}
