import type { IDataObject, IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';

import { forOperation, pagingFields } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import {
	addDays,
	calendarDate,
	checkReviewDays,
	EARLIEST_DATE,
	isInWindow,
	REVIEW_DUE_WITHIN,
	reviewWindow,
} from '../../helpers/dates';
import { instantInQuery } from '../../helpers/preSend';
import { listRouting } from '../../helpers/lists';

/** The review filters, applied while paging: the service has no date filter, so every client listed is read. */
function reviewDueFilter(this: IExecuteSingleFunctions) {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const days = filters.reviewDueWithinDays;
	const includeOverdue = filters.includeOverdue === true;
	const withinDays = days !== undefined && days !== '' && days !== null;
	if (!withinDays && !includeOverdue) return undefined;
	const today = calendarDate(Date.now(), this.getTimezone());
	const window = withinDays
		? reviewWindow(today, checkReviewDays(days, this.getNode(), this.getItemIndex()))
		: { from: today, to: addDays(today, -1) };
	if (includeOverdue) window.from = EARLIEST_DATE;
	return (client: IDataObject) => isInWindow(window, client.nextReviewDate);
}

/** GET /clients: list items (entity reference only), all pages or up to Limit. */
export const routing = listRouting('/clients', 'clientListItem', reviewDueFilter);

const properties: INodeProperties[] = [
	...pagingFields,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Include Overdue',
				name: 'includeOverdue',
				type: 'boolean',
				default: false,
				description:
					"Whether to return clients whose next review date has already passed: on its own, only those; with 'Review Due Within (Days)', those too",
			},
			{
				displayName: 'Modified Since',
				name: 'sinceModifiedAt',
				type: 'dateTime',
				default: '',
				description:
					'Only clients changed at or after this time: the client, its person or organisation, or its AML determination',
				routing: {
					send: {
						type: 'query',
						property: 'sinceModifiedAt',
						preSend: [instantInQuery('sinceModifiedAt', 'Modified Since')],
					},
				},
			},
			{
				displayName: REVIEW_DUE_WITHIN,
				name: 'reviewDueWithinDays',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 30,
				description:
					"Only clients whose next review date is from today to this many days ahead, today in the workflow's time zone. The service cannot filter by date, so the node reads every client (or every one changed since 'Modified Since') to find them.",
			},
		],
	},
	...outputFields('clientListItem'),
];

export const description = forOperation('client', 'getAll', properties);
