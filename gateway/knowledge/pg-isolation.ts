// Workspace isolation in PostgreSQL (spec §5.2): every knowledge table holds a `workspace_id`, and
// row-level security, forced even for the table owner, lets a transaction see and write only the
// rows of the workspace it set in `agw.workspace`. One statement block per table, the same for all.

/** The statements that put `tables` under the workspace-isolation policy (idempotent). */
export function workspaceIsolation(...tables: readonly string[]): string {
  return tables
    .map(
      (table) => `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS workspace_isolation ON ${table};
CREATE POLICY workspace_isolation ON ${table}
  USING (workspace_id = current_setting('agw.workspace', true)) WITH CHECK (workspace_id = current_setting('agw.workspace', true));`,
    )
    .join('\n');
}
