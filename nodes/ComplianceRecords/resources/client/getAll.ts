import type { IDataObject, IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';

import { forOperation, pagingFields } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import {
	calendarDate,
	checkReviewDays,
	EARLIEST_DATE,
	isInWindow,
	REVIEW_DUE_WITHIN,
	reviewWindow,
} from '../../helpers/dates';
import { instantInQuery } from '../../helpers/preSend';
import { listRouting } from '../../helpers/lists';

/** 2.1 asks for the review date in one choice; 1 and 2 keep their two filters. */
const REVIEW_DUE_VERSION = 2.1;

type ReviewDue = 'any' | 'overdue' | 'dueWithin' | 'overdueOrDueWithin';

function savedReviewDue(filters: IDataObject): ReviewDue {
	const withinDays = ![undefined, '', null].includes(filters.reviewDueWithinDays as string);
	if (filters.includeOverdue === true) return withinDays ? 'overdueOrDueWithin' : 'overdue';
	return withinDays ? 'dueWithin' : 'any';
}

/** The service has no date filter: every client listed is read. */
function reviewDueFilter(this: IExecuteSingleFunctions) {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const chosen =
		this.getNode().typeVersion >= REVIEW_DUE_VERSION
			? ((filters.reviewDue ?? 'any') as ReviewDue)
			: savedReviewDue(filters);
	if (chosen === 'any') return undefined;
	const today = calendarDate(Date.now(), this.getTimezone());
	const days =
		chosen === 'overdue'
			? -1
			: checkReviewDays(
					filters.reviewDueWithinDays ?? DEFAULT_DAYS,
					this.getNode(),
					this.getItemIndex(),
				);
	const window = reviewWindow(today, days);
	if (chosen !== 'dueWithin') window.from = EARLIEST_DATE;
	return (client: IDataObject) => isInWindow(window, client.nextReviewDate);
}

export const routing = listRouting('/clients', 'clientListItem', reviewDueFilter);

const sinceVersion = (version: number) => ({ '@version': [{ _cnd: { gte: version } }] });
const beforeVersion = (version: number) => ({ '@version': [{ _cnd: { lt: version } }] });

const DEFAULT_DAYS = 30;
const DUE_WITHIN = `'${REVIEW_DUE_WITHIN}' (${DEFAULT_DAYS} unless set)`;

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
					"Whether to return the clients whose next review date has passed: alone, only those; with 'Review Due Within (Days)', those too",
				displayOptions: { show: beforeVersion(REVIEW_DUE_VERSION) },
			},
			{
				displayName: 'Modified Since',
				name: 'sinceModifiedAt',
				type: 'dateTime',
				default: '',
				description:
					'Only clients changed at or after this time: the client, its entity or its AML determination',
				routing: {
					send: {
						type: 'query',
						property: 'sinceModifiedAt',
						preSend: [instantInQuery('sinceModifiedAt', 'Modified Since')],
					},
				},
			},
			{
				displayName: 'Review Due',
				name: 'reviewDue',
				type: 'options',
				default: 'dueWithin',
				description:
					"Which clients to return by their next review date, today being in the workflow's time zone. The service cannot filter by date, so the node reads every client (or every one changed since 'Modified Since') to find them.",
				options: [
					{ name: 'Any', value: 'any', description: 'Every client, with a review date or not' },
					{
						name: 'Due Within (Days)',
						value: 'dueWithin',
						description: `Clients whose next review date is from today to ${DUE_WITHIN} days ahead`,
					},
					{
						name: 'Overdue',
						value: 'overdue',
						description: 'Clients whose next review date has passed',
					},
					{
						name: 'Overdue or Due Within (Days)',
						value: 'overdueOrDueWithin',
						description: `Clients whose next review date has passed or is at most ${DUE_WITHIN} days ahead`,
					},
				],
				displayOptions: { show: sinceVersion(REVIEW_DUE_VERSION) },
			},
			{
				displayName: REVIEW_DUE_WITHIN,
				name: 'reviewDueWithinDays',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_DAYS,
				description:
					"Only clients whose next review date is from today to this many days ahead, today being in the workflow's time zone",
				displayOptions: { show: beforeVersion(REVIEW_DUE_VERSION) },
			},
			// The same field from 2.1, shown once 'Review Due' asks for a window.
			{
				displayName: REVIEW_DUE_WITHIN,
				name: 'reviewDueWithinDays',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 0 },
				default: DEFAULT_DAYS,
				description: "How many days ahead of today, for 'Review Due'; 0 is today only",
				displayOptions: {
					show: {
						...sinceVersion(REVIEW_DUE_VERSION),
						reviewDue: ['dueWithin', 'overdueOrDueWithin'],
					},
				},
			},
		],
	},
	...outputFields('clientListItem'),
];

export const description = forOperation('client', 'getAll', properties);
