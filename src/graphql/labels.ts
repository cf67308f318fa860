/**
 * The operation label of a GraphQL request in logs and metrics: `graphql <operationName>`. Clients
 * choose the names, so the labels are bounded: the first MAX_NAMES names seen keep their own,
 * later ones share `graphql (other)`; an anonymous operation is `graphql`.
 */
const MAX_NAMES = 100;

export class OperationLabels {
  private readonly names = new Map<string, string>();

  of(name: string | undefined): string {
    if (name === undefined) return 'graphql';
    const known = this.names.get(name);
    if (known !== undefined) return known;
    if (this.names.size >= MAX_NAMES) return 'graphql (other)';
    const label = `graphql ${name}`;
    this.names.set(name, label);
    return label;
  }
}
