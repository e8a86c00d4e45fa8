import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INode,
	INodeParameterResourceLocator,
	PreSendAction,
} from 'n8n-workflow';

import { itemError } from '../transport/errors';
import { checkId } from './checks';

/** The record an operation reads or changes: an ID field in version 1, a picker from 2. */
export interface RecordParameter {
	/** 'Client': its picker's name, and the word of "not found" errors. */
	label: string;
	withArticle: string;
	parameter: string;
	/** Version 1's ID field, e.g. 'Client ID'. */
	idFieldName: string;
	/** 'clients' for `.../clients/<id>`. */
	collection: string;
	searchListMethod: string;
}

/** Version 1 takes records and dates as text. */
export const PICKER_VERSION = 2;

export const fieldNameOf = (node: INode, record: RecordParameter) =>
	node.typeVersion >= PICKER_VERSION ? record.label : record.idFieldName;

/** A record's web or API URL (`links.web`, `links.self`) on any host. */
export const recordUrlPattern = (record: RecordParameter) =>
	`^\\s*https?://[^\\s/?#]+(?:/[^\\s?#]*)?/${record.collection}/([^\\s/?#]+)/?(?:[?#]\\S*)?\\s*$`;

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

// A URL is read here: n8n's extractValue refusal names no item, nor what to paste.
export function recordIdOf(context: IExecuteSingleFunctions, record: RecordParameter): unknown {
	const given = context.getNodeParameter(
		record.parameter,
		'',
	) as Partial<INodeParameterResourceLocator>;
	if (typeof given === 'object' && given?.mode === 'url') {
		return idInRecordUrl(given.value, record, context.getNode(), context.getItemIndex());
	}
	return context.getNodeParameter(record.parameter, '', { extractValue: true });
}

/** The ID checked and URL-encoded so it cannot reach another path. */
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
