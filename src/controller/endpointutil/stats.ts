/** Counts of an endpoint controller's work (EndpointSlice or Endpoints), for tests and benchmarks. */
export interface EndpointControllerStats {
  syncs: number;
  creates: number;
  updates: number;
  deletes: number;
  staleCacheRetries: number;
}
