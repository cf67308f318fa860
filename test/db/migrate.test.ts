import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMigrations, splitStatements } from '../../src/db/migrate.js';

test('migration files split at semicolons outside $$ bodies, comments dropped', () => {
  const sql = `-- a comment; with a semicolon
CREATE TABLE t (a int); -- trailing
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1; -- inside the body
  RETURN NULL;
END
$$;
CREATE TRIGGER g AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f();
`;
  assert.deepEqual(splitStatements(sql), [
    'CREATE TABLE t (a int)',
    'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1; -- inside the body\n  RETURN NULL;\nEND\n$$',
    'CREATE TRIGGER g AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()',
  ]);
});

test('every migration file splits into statements that each end where a statement ends', () => {
  for (const m of loadMigrations()) {
    const statements = splitStatements(m.sql);
    assert.ok(statements.length > 0, m.name);
    for (const s of statements) assert.equal((s.match(/\$\$/g) ?? []).length % 2, 0, `${m.name}: unbalanced $$ in ${s}`);
  }
});
