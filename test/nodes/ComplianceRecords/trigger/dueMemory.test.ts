import { addDays } from '../../../helpers/calendar';
import { reviewWindow } from '../../../../nodes/ComplianceRecords/helpers/dates';
import { CLIENT_KEY_LENGTH } from '../../../../nodes/ComplianceRecords/trigger/clientKeys';
import { DueMemory } from '../../../../nodes/ComplianceRecords/trigger/dueMemory';

/** How many clients the memory keeps in the static data it writes. */
const remembered = (memory: DueMemory | undefined) =>
	Object.values(memory?.encode() ?? {}).join('').length / CLIENT_KEY_LENGTH;

describe('DueMemory', () => {
	const window = reviewWindow('2026-11-21', 30);

	it('emits a client once when its date is in the window, again only when the date changes', () => {
		const memory = new DueMemory();
		expect(memory.observe('c1', '2026-12-01', window)).toBe(true);
		expect(memory.observe('c1', '2026-12-01', window)).toBe(false); // modified, same date
		expect(memory.observe('c1', '2026-12-05', window)).toBe(true); // date changed
		expect(memory.observe('c1', '2026-12-01', window)).toBe(true); // and back
	});

	it('forgets a client whose date leaves the window, so coming back is a change', () => {
		const memory = new DueMemory();
		memory.observe('c1', '2026-12-01', window);
		expect(memory.observe('c1', '2027-06-01', window)).toBe(false);
		expect(remembered(memory)).toBe(0);
		expect(memory.observe('c1', '2026-12-01', window)).toBe(true);
		memory.observe('c1', null, window);
		expect(remembered(memory)).toBe(0);
	});

	it('forgets dates that have passed', () => {
		const memory = new DueMemory();
		memory.observe('c1', '2026-11-21', window);
		memory.observe('c2', '2026-11-22', window);
		memory.forgetBefore('2026-11-22');
		expect(remembered(memory)).toBe(1);
		expect(memory.observe('c2', '2026-11-22', reviewWindow('2026-11-22', 30))).toBe(false);
	});

	it('survives a round trip through static data at about 8 bytes per client in the window', () => {
		const memory = new DueMemory();
		for (let i = 0; i < 3_000; i++) {
			memory.observe(`client-${i}`, addDays('2026-11-21', i % 31), window);
		}
		const json = JSON.stringify(memory.encode());
		const decoded = DueMemory.decode(JSON.parse(json));
		expect(remembered(decoded)).toBe(3_000);
		expect(decoded?.observe('client-7', addDays('2026-11-21', 7), window)).toBe(false);
		expect(decoded?.observe('client-7', addDays('2026-11-21', 8), window)).toBe(true);
		// 8 characters per client plus '"YYYY-MM-DD":"",' per date.
		expect(json.length).toBeLessThanOrEqual(3_000 * 8 + 31 * 16 + 2);
	});

	it('rejects static data it did not write', () => {
		expect(DueMemory.decode('x')).toBeUndefined();
		expect(DueMemory.decode({ tomorrow: 'abcdefgh' })).toBeUndefined();
		expect(DueMemory.decode({ '2026-11-22': 'abc' })).toBeUndefined();
	});
});
