import {
  type GraphQLInputType,
  type GraphQLSchema,
  isInputObjectType,
  isInputType,
  isLeafType,
  isListType,
  isNonNullType,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';

/**
 * An operation's variables coerced as graphql-js's getVariableValues coerces them, for the values
 * it accepts as they are: its generic walk (types checked at every value, paths and error
 * callbacks made for each) was 4 to 11 µs of a 50-row answer's CPU, the largest part of a
 * request's preparation. The walk is planned once per operation: objects, lists and non-null
 * as graphql-js reads them, each scalar and enum by its own parseValue. Anything graphql-js would
 * refuse or fill in (a missing required value, an unknown field, a value parseValue refuses, a
 * default value, a oneOf input) gives undefined: getVariableValues then coerces, with its errors.
 * test/graphql/graphql-variables.test.ts compares the two.
 */

/** A value's coercion; throws REFUSED where graphql-js would report an error. */
type Coerce = (value: unknown) => unknown;

const REFUSED = Symbol('refused');

function coercer(type: GraphQLInputType, open: Set<GraphQLInputType>): Coerce | undefined {
  if (isNonNullType(type)) {
    const inner = coercer(type.ofType, open);
    return (
      inner &&
      ((value) => {
        if (value == null) throw REFUSED;
        return inner(value);
      })
    );
  }
  if (isListType(type)) {
    const item = coercer(type.ofType, open);
    if (!item) return undefined;
    return (value) => {
      if (value == null) return null;
      // A list's items, or a single value as a list of one.
      if (!Array.isArray(value)) return [item(value)];
      const out = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) out[i] = item(value[i]);
      return out;
    };
  }
  if (isLeafType(type)) {
    return (value) => {
      if (value == null) return null;
      let parsed: unknown;
      try {
        parsed = type.parseValue(value);
      } catch {
        throw REFUSED;
      }
      if (parsed === undefined) throw REFUSED;
      return parsed;
    };
  }
  // An input object; one that holds itself is left to graphql-js.
  if (!isInputObjectType(type) || type.isOneOf || open.has(type)) return undefined;
  open.add(type);
  const fields: [name: string, coerce: Coerce, required: boolean][] = [];
  for (const field of Object.values(type.getFields())) {
    const coerce = field.defaultValue === undefined ? coercer(field.type, open) : undefined;
    if (!coerce) return undefined;
    fields.push([field.name, coerce, isNonNullType(field.type)]);
  }
  open.delete(type);
  const known = new Set(fields.map(([name]) => name));
  return (value) => {
    if (value == null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) throw REFUSED;
    const given = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, coerce, required] of fields) {
      const v = given[name];
      if (v === undefined) {
        if (required) throw REFUSED;
        continue;
      }
      out[name] = coerce(v);
    }
    for (const key of Object.keys(given)) if (!known.has(key)) throw REFUSED;
    return out;
  };
}

/** An operation's variables: name, coercion, and whether the variable is required. */
type Plan = [name: string, coerce: Coerce, required: boolean][];

/** The plans, per operation and the schema they were made with (null: the operation is left to graphql-js). */
const plans = new WeakMap<OperationDefinitionNode, { schema: GraphQLSchema; plan: Plan | null }>();

function planOf(schema: GraphQLSchema, operation: OperationDefinitionNode): Plan | null {
  const kept = plans.get(operation);
  if (kept?.schema === schema) return kept.plan;
  let plan: Plan | null = [];
  for (const def of operation.variableDefinitions ?? []) {
    // A default is graphql-js's to fill in; a variable named __proto__ would set the result's prototype here.
    const type = def.defaultValue || def.variable.name.value === '__proto__' ? undefined : typeFromAST(schema, def.type);
    const coerce = type && isInputType(type) ? coercer(type, new Set()) : undefined;
    if (!coerce || !type) {
      plan = null;
      break;
    }
    plan.push([def.variable.name.value, coerce, isNonNullType(type)]);
  }
  plans.set(operation, { schema, plan });
  return plan;
}

/** The variables as getVariableValues coerces them; undefined when it must coerce them itself (see above). */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  inputs: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const plan = planOf(schema, operation);
  if (plan === null) return undefined;
  const out: Record<string, unknown> = {};
  try {
    for (const [name, coerce, required] of plan) {
      if (!Object.hasOwn(inputs, name)) {
        if (required) return undefined;
        continue;
      }
      out[name] = coerce(inputs[name]);
    }
  } catch (err) {
    if (err === REFUSED) return undefined;
    throw err;
  }
  return out;
}
