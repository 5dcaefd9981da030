// A value a user typed in a dialog's typedInput (boolean, number, string or JSON), read
// from the flow at deploy: what easy-plan's switch values and easy-peak's guard values send.

/** A value typed in the dialog (a typedInput's value and type), or an Error naming the field. */
export function typedValue(value: unknown, type: unknown, what: string): unknown {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  switch (type) {
    case 'bool':
      if (value === true || value === false) return value;
      if (text === 'true' || text === 'false') return text === 'true';
      throw new Error(`${what} must be true or false, got ${JSON.stringify(value)}`);
    case 'num': {
      const n = text.trim() === '' ? NaN : Number(text);
      if (!Number.isFinite(n)) throw new Error(`${what} must be a number, got ${JSON.stringify(value)}`);
      return n;
    }
    case 'str':
      return text;
    case 'json':
      try {
        return JSON.parse(text);
      } catch (err) {
        // the reason is in the message; the target's lib has no Error cause
        // eslint-disable-next-line preserve-caught-error
        throw new Error(`${what} is not valid JSON: ${(err as Error).message}`);
      }
    default:
      throw new Error(`${what} has an unknown type ${JSON.stringify(type)} (bool, num, str or json)`);
  }
}
