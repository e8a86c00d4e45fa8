import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INode,
	INodeParameterResourceLocator,
	PreSendAction,
} from 'n8n-workflow';

import { itemError } from '../transport/errors';
import { checkId } from './checks';

/** The record an operation reads or changes: one parameter, an ID field in version 1, a picker from 2. */
export interface RecordParameter {
	/** What the record is, e.g. 'Client': the name of its picker, and the word of "not found" errors. */
	label: string;
	/** The record with its article, for messages: 'a client'. */
	withArticle: string;
	/** The parameter holding it in every version, e.g. 'clientId'. */
	parameter: string;
	/** The name of version 1's ID field, e.g. 'Client ID'. */
	idFieldName: string;
	/** The collection its URLs end in, before the ID: 'clients' for `.../clients/<id>`. */
	collection: string;
	/** The node's `methods.listSearch` method that fills From List. */
	searchListMethod: string;
}

/** The node version from which a record or a date is picked (version 1 takes them as text). */
export const PICKER_VERSION = 2;

export const fieldNameOf = (node: INode, record: RecordParameter) =>
	node.typeVersion >= PICKER_VERSION ? record.label : record.idFieldName;

/** A record's web or API URL (`links.web`, `links.self`) on any host: its path ends in `/<collection>/<id>`. */
export const recordUrlPattern = (record: RecordParameter) =>
	`^\\s*https?://[^\\s/?#]+(?:/[^\\s?#]*)?/${record.collection}/([^\\s/?#]+)/?(?:[?#]\\S*)?\\s*$`;

/** The ID in a record's URL, decoded; any other URL is refused, naming the field, before anything is sent. */
function idInRecordUrl(
	url: unknown,
	record: RecordParameter,
	node: INode,
	itemIndex: number,
): string {
	const given = typeof url === 'string' ? url.trim() : String(url ?? '');
	const found = new RegExp(recordUrlPattern(record)).exec(given);
	let id: string | undefined;
	try {
		id = found ? decodeURIComponent(found[1]) : undefined;
	} catch {
		id = undefined; // a malformed percent-escape: not a URL the service gave
	}
	if (id === undefined) {
		const field = fieldNameOf(node, record);
		throw itemError(
			node,
			itemIndex,
			`'${field}' "${given}" is not the URL of ${record.withArticle}`,
			`Paste the address of ${record.withArticle}'s page in the service: it ends in /${record.collection}/ followed by the ID. To give the ID alone, choose 'By ID' in '${field}'.`,
		);
	}
	return id;
}

/**
 * The ID the user gave for the record, whatever the node's version and the picker's mode. A URL
 * is read here rather than by n8n's extractValue, whose refusal ("ERROR: Client parameter's value
 * is invalid...") names no item and says nothing of what to paste.
 */
export function recordIdOf(context: IExecuteSingleFunctions, record: RecordParameter): unknown {
	// What n8n's extractValue takes for a picker's value: any object with a mode and a value.
	const given = context.getNodeParameter(
		record.parameter,
		'',
	) as Partial<INodeParameterResourceLocator>;
	if (typeof given === 'object' && given?.mode === 'url') {
		return idInRecordUrl(given.value, record, context.getNode(), context.getItemIndex());
	}
	return context.getNodeParameter(record.parameter, '', { extractValue: true });
}

/** The path of one record, its ID checked and URL-encoded so it cannot reach another path. */
export function recordUrl(collectionPath: string, record: RecordParameter): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const id = checkId(recordIdOf(this, record), fieldNameOf(this.getNode(), record), {
			node: this.getNode(),
			itemIndex: this.getItemIndex(),
		});
		requestOptions.url = `${collectionPath}/${encodeURIComponent(id)}`;
		return requestOptions;
	};
}
