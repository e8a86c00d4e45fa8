import type { IDataObject, IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { forOperation, outputFields, pagingFields } from '../../actions/fields';
import { listRouting } from '../../actions/routing';
import { instantInQuery } from '../../actions/validation';
import { calendarDate, EARLIEST_DATE, isInWindow, reviewWindow } from '../../trigger/reviewWindow';

/**
 * Review Due Within: the service has no date filter, so the node keeps, while paging, the clients
 * whose next review date lies from today (the workflow's time zone) to today + N days, both
 * included, and with Include Overdue also those already past. It reads every client, or every
 * client modified since Modified Since: ⌊clients / 200⌋ + 1 requests, fewer once Limit is reached.
 */
function reviewDueFilter(this: IExecuteSingleFunctions) {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const days = filters.reviewDueWithinDays;
	const includeOverdue = filters.includeOverdue === true;
	const refuse = (message: string, description: string) =>
		new NodeOperationError(this.getNode(), `${message} [item ${this.getItemIndex()}]`, { itemIndex: this.getItemIndex(), description });
	if (days === undefined || days === '' || days === null) {
		if (includeOverdue) {
			throw refuse('Include Overdue needs Review Due Within (Days)', 'Add the filter Review Due Within (Days), e.g. 30.');
		}
		return undefined;
	}
	if (typeof days !== 'number' || !Number.isInteger(days) || days < 0) {
		throw refuse(
			`Review Due Within (Days) must be a whole number of days, 0 or more (got ${String(days)})`,
			'0 finds reviews due today; 30 those due in the next 30 days.',
		);
	}
	// The Review Due event's window (today to today + N days), open at the start for overdue ones.
	const window = reviewWindow(calendarDate(Date.now(), this.getTimezone()), days);
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
					'Whether Review Due Within (Days) also returns clients whose next review date has already passed',
			},
			{
				displayName: 'Modified Since',
				name: 'sinceModifiedAt',
				type: 'dateTime',
				default: '',
				description:
					'Only clients changed at or after this time (the client, its entity or its AML determination), as an ISO 8601 date-time such as 2026-03-31T09:00:00Z',
				routing: {
					send: {
						type: 'query',
						property: 'sinceModifiedAt',
						preSend: [instantInQuery('sinceModifiedAt', 'Modified Since')],
					},
				},
			},
			{
				displayName: 'Review Due Within (Days)',
				name: 'reviewDueWithinDays',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 30,
				description:
					"Only clients whose next review date is from today to this many days ahead (today in the workflow's time zone). The service has no date filter: the node reads every client (or every one modified since Modified Since) to find them.",
			},
		],
	},
	...outputFields('clientListItem'),
];

export const description = forOperation('client', 'getAll', properties);
