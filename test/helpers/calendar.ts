/** The calendar date `days` after a `YYYY-MM-DD` date (before it when negative), as `YYYY-MM-DD`. */
export const addDays = (date: string, days: number): string =>
	new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
