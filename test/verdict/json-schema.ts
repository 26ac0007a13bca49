// A JSON Schema validator for the subset schema/verdict.schema.json uses: type, const, enum, required,
// properties, additionalProperties, items, minItems, maxItems, minimum, pattern and local $ref (#/$defs/...).
// Any other keyword fails loudly, so the schema cannot grow past what this checks.
type Schema = Record<string, unknown>;

const KNOWN = new Set(["$schema", "$id", "title", "description", "type", "const", "enum", "required", "properties", "additionalProperties", "items", "minItems", "maxItems", "minimum", "pattern", "$ref", "$defs"]);

function typeOk(type: string, v: unknown): boolean {
  switch (type) {
    case "object": return typeof v === "object" && v !== null && !Array.isArray(v);
    case "array": return Array.isArray(v);
    case "string": return typeof v === "string";
    case "number": return typeof v === "number" && Number.isFinite(v);
    case "integer": return Number.isInteger(v);
    case "boolean": return typeof v === "boolean";
    case "null": return v === null;
    default: throw new Error(`json-schema: unknown type ${type}`);
  }
}

/** The problems of `value` against `schema` (root holds the $defs), as "path: what" lines; [] when valid. */
export function validate(schema: Schema, value: unknown, root: Schema = schema, at = "$"): string[] {
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) throw new Error(`json-schema: keyword ${k} is not supported by this validator`);
  if (typeof schema.$ref === "string") {
    const m = /^#\/\$defs\/(\w+)$/.exec(schema.$ref);
    if (!m) throw new Error(`json-schema: $ref ${schema.$ref} is not local`);
    return validate((root.$defs as Record<string, Schema>)[m[1]], value, root, at);
  }
  const errors: string[] = [];
  if (schema.type !== undefined && !typeOk(schema.type as string, value)) return [`${at}: expected ${String(schema.type)}, got ${JSON.stringify(value)}`];
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) errors.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "number" && schema.minimum !== undefined && value < (schema.minimum as number)) errors.push(`${at}: ${value} < ${String(schema.minimum)}`);
  if (typeof value === "string" && schema.pattern !== undefined && !new RegExp(schema.pattern as string).test(value)) errors.push(`${at}: ${JSON.stringify(value)} does not match ${String(schema.pattern)}`);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < (schema.minItems as number)) errors.push(`${at}: fewer than ${String(schema.minItems)} items`);
    if (schema.maxItems !== undefined && value.length > (schema.maxItems as number)) errors.push(`${at}: more than ${String(schema.maxItems)} items`);
    if (schema.items) value.forEach((v, i) => errors.push(...validate(schema.items as Schema, v, root, `${at}[${i}]`)));
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const r of (schema.required as string[] | undefined) ?? []) if (!(r in obj)) errors.push(`${at}: missing ${r}`);
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (k in props) errors.push(...validate(props[k], v, root, `${at}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unexpected property ${k}`);
      else if (typeof schema.additionalProperties === "object") errors.push(...validate(schema.additionalProperties as Schema, v, root, `${at}.${k}`));
    }
  }
  return errors;
}
