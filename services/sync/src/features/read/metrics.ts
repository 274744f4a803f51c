import { counter } from '@timetable/observability';

export const syncListsDecoded = counter({
  name: 'sync_lists_decoded_total',
  help: 'Upstream list answers decoded and validated: those not answered as the last time this process decoded them',
});
