import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export interface Client extends IDataObject {
	id: string;
	lastModifiedAt: string;
}

export function unreadable(context: IPollFunctions, problem: string): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`The service returned data the trigger cannot read: ${problem}`,
		{
			description:
				"No workflow was started for these changes and the trigger keeps its place: the next poll reads the same changes again. If this comes back at every poll, check that the credential's 'Base URL' is the service's API address; if it is, give this message to the service's support.",
		},
	);
}

export function timestampOf(context: IPollFunctions, value: unknown, field: string): number {
	const time = typeof value === 'string' ? Date.parse(value) : NaN;
	if (Number.isNaN(time))
		throw unreadable(context, `${field} is ${JSON.stringify(value)}, not a date and time`);
	return time;
}

export function checkedClient(context: IPollFunctions, item: unknown): Client {
	const client = item as Client;
	if (
		typeof client !== 'object' ||
		client === null ||
		typeof client.id !== 'string' ||
		!client.id
	) {
		throw unreadable(context, 'a client has no ID');
	}
	timestampOf(context, client.lastModifiedAt, `the last change time of client ${client.id}`);
	return client;
}
