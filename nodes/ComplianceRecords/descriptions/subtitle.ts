import type { INodeProperties } from 'n8n-workflow';

/**
 * The canvas subtitle: the display names of the chosen options of these parameters, joined by
 * ": " (n8n's node UI design: "Get Many: Client", never the stored "getAll: client").
 */
export function subtitleOf(properties: INodeProperties[], parameterNames: string[]): string {
	const shown = parameterNames.map((name) => {
		const names = Object.fromEntries(
			properties
				.filter((property) => property.name === name)
				.flatMap((property) => property.options ?? [])
				.map((option) => ('value' in option ? [String(option.value), option.name] : [])),
		);
		return `(${JSON.stringify(names)}[$parameter["${name}"]] ?? $parameter["${name}"])`;
	});
	return `={{ ${shown.join(' + ": " + ')} }}`;
}
