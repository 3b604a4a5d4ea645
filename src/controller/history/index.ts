/** ControllerRevision history shared by the DaemonSet and StatefulSet controllers (upstream's pkg/controller/history). */
export * from './controller_history.js';
