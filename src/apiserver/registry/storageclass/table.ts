/** The StorageClasses' Table columns, as upstream's printStorageClass. */
import { isDefaultStorageClass } from '../../../api/index.js';
import { ageColumn, column, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** StorageClasses: NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE; the default is "name (default)". */
export const storageClassTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Provisioner', 'string', 'The provisioner of the class.'),
    column('ReclaimPolicy', 'string', 'The reclaim policy of volumes the class provisions.'),
    column('VolumeBindingMode', 'string', 'When volumes of the class are bound and provisioned.'),
    column('AllowVolumeExpansion', 'string', 'Whether claims of the class may grow.'),
    ageColumn(),
  ],
  print: (sc, now) => ({
    cells: [
      `${str(sc.metadata?.name)}${isDefaultStorageClass(sc) ? ' (default)' : ''}`,
      str(sc.provisioner),
      typeof sc.reclaimPolicy === 'string' ? sc.reclaimPolicy : 'Delete',
      typeof sc.volumeBindingMode === 'string' ? sc.volumeBindingMode : 'Immediate',
      sc.allowVolumeExpansion === true,
      timestampSince(sc.metadata?.creationTimestamp, now),
    ],
  }),
};
