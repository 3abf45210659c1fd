import { defineSignal } from '@temporalio/workflow';

/** The approver's decision. */
export const decideSignal = defineSignal<[{ approved: boolean }]>('decide');
