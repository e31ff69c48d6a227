package models

import (
	"context"
	"fmt"
	"time"

	"database/sql"
)

// migrations is mneme's schema history. It is append-only: never edit or
// reorder an entry that has shipped; add a new one. The schema version stored
// in schema_version is the number of entries applied.
var migrations = []string{
	// 1: sessions, prompts, observations, summaries, settings, event log.
	`CREATE TABLE sessions (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		claude_session_id TEXT NOT NULL UNIQUE,
		project TEXT NOT NULL DEFAULT '',
		cwd TEXT NOT NULL DEFAULT '',
		git_branch TEXT NOT NULL DEFAULT '',
		source TEXT NOT NULL DEFAULT '',
		status TEXT NOT NULL DEFAULT 'active',
		prompt_counter INTEGER NOT NULL DEFAULT 0,
		started_at DATETIME NOT NULL,
		ended_at DATETIME,
		end_reason TEXT NOT NULL DEFAULT '',
		transcript_path TEXT NOT NULL DEFAULT '',
		last_assistant_message TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX sessions_project_started ON sessions(project, started_at);
	CREATE INDEX sessions_started ON sessions(started_at);

	CREATE TABLE prompts (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		project TEXT NOT NULL DEFAULT '',
		number INTEGER NOT NULL,
		text TEXT NOT NULL,
		prompt_id TEXT NOT NULL DEFAULT '',
		created_at DATETIME NOT NULL
	);
	CREATE UNIQUE INDEX prompts_session_number ON prompts(session_id, number);
	CREATE INDEX prompts_prompt_id ON prompts(session_id, prompt_id);
	CREATE INDEX prompts_project_created ON prompts(project, created_at);

	CREATE TABLE private_prompts (
		session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		number INTEGER NOT NULL,
		prompt_id TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (session_id, number)
	);

	CREATE TABLE observations (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		project TEXT NOT NULL DEFAULT '',
		prompt_number INTEGER NOT NULL DEFAULT 0,
		tool_use_id TEXT,
		tool_name TEXT NOT NULL,
		kind TEXT NOT NULL,
		title TEXT NOT NULL,
		input TEXT NOT NULL DEFAULT '',
		output TEXT NOT NULL DEFAULT '',
		files TEXT NOT NULL DEFAULT '[]',
		success BOOLEAN NOT NULL DEFAULT 1,
		importance REAL NOT NULL DEFAULT 0.5,
		duration_ms INTEGER NOT NULL DEFAULT 0,
		excluded_by TEXT NOT NULL DEFAULT '',
		created_at DATETIME NOT NULL
	);
	CREATE UNIQUE INDEX observations_tool_use ON observations(session_id, tool_use_id) WHERE tool_use_id IS NOT NULL;
	CREATE INDEX observations_session ON observations(session_id, id);
	CREATE INDEX observations_project_created ON observations(project, created_at);
	CREATE INDEX observations_created ON observations(created_at);

	CREATE TABLE summaries (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		project TEXT NOT NULL DEFAULT '',
		prompt_number INTEGER NOT NULL DEFAULT 0,
		kind TEXT NOT NULL,
		request TEXT NOT NULL DEFAULT '',
		investigated TEXT NOT NULL DEFAULT '',
		learned TEXT NOT NULL DEFAULT '',
		completed TEXT NOT NULL DEFAULT '',
		next_steps TEXT NOT NULL DEFAULT '',
		last_user_message TEXT NOT NULL DEFAULT '',
		last_assistant_message TEXT NOT NULL DEFAULT '',
		generator TEXT NOT NULL DEFAULT 'heuristic',
		note TEXT NOT NULL DEFAULT '',
		input_tokens INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd REAL NOT NULL DEFAULT 0,
		created_at DATETIME NOT NULL
	);
	CREATE INDEX summaries_session ON summaries(session_id, id);
	CREATE INDEX summaries_project_created ON summaries(project, created_at);

	CREATE TABLE settings (
		key TEXT PRIMARY KEY,
		value TEXT NOT NULL,
		updated_at DATETIME NOT NULL
	);

	CREATE TABLE events (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		kind TEXT NOT NULL,
		project TEXT NOT NULL DEFAULT '',
		session_id INTEGER NOT NULL DEFAULT 0,
		ref_id INTEGER NOT NULL DEFAULT 0,
		data TEXT NOT NULL DEFAULT '{}',
		created_at DATETIME NOT NULL
	);
	CREATE INDEX events_created ON events(created_at);`,

	// 2: full-text search over prompts, observations and summaries, kept in
	// sync by triggers (external-content FTS5 tables).
	`CREATE VIRTUAL TABLE prompts_fts USING fts5(text, content='prompts', content_rowid='id', tokenize='porter unicode61');
	CREATE TRIGGER prompts_ai AFTER INSERT ON prompts BEGIN
		INSERT INTO prompts_fts(rowid, text) VALUES (new.id, new.text);
	END;
	CREATE TRIGGER prompts_ad AFTER DELETE ON prompts BEGIN
		INSERT INTO prompts_fts(prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
	END;
	CREATE TRIGGER prompts_au AFTER UPDATE OF text ON prompts BEGIN
		INSERT INTO prompts_fts(prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
		INSERT INTO prompts_fts(rowid, text) VALUES (new.id, new.text);
	END;

	CREATE VIRTUAL TABLE observations_fts USING fts5(title, input, output, files, content='observations', content_rowid='id', tokenize='porter unicode61');
	CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
		INSERT INTO observations_fts(rowid, title, input, output, files) VALUES (new.id, new.title, new.input, new.output, new.files);
	END;
	CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
		INSERT INTO observations_fts(observations_fts, rowid, title, input, output, files) VALUES ('delete', old.id, old.title, old.input, old.output, old.files);
	END;
	CREATE TRIGGER observations_au AFTER UPDATE OF title, input, output, files ON observations BEGIN
		INSERT INTO observations_fts(observations_fts, rowid, title, input, output, files) VALUES ('delete', old.id, old.title, old.input, old.output, old.files);
		INSERT INTO observations_fts(rowid, title, input, output, files) VALUES (new.id, new.title, new.input, new.output, new.files);
	END;

	CREATE VIRTUAL TABLE summaries_fts USING fts5(request, investigated, learned, completed, next_steps, last_assistant_message, content='summaries', content_rowid='id', tokenize='porter unicode61');
	CREATE TRIGGER summaries_ai AFTER INSERT ON summaries BEGIN
		INSERT INTO summaries_fts(rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.last_assistant_message);
	END;
	CREATE TRIGGER summaries_ad AFTER DELETE ON summaries BEGIN
		INSERT INTO summaries_fts(summaries_fts, rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.last_assistant_message);
	END;
	CREATE TRIGGER summaries_au AFTER UPDATE ON summaries BEGIN
		INSERT INTO summaries_fts(summaries_fts, rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.last_assistant_message);
		INSERT INTO summaries_fts(rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.last_assistant_message);
	END;`,

	// 3: the persisted summary queue and the token ledger of LLM calls.
	`CREATE TABLE summary_jobs (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		kind TEXT NOT NULL,
		prompt_number INTEGER NOT NULL DEFAULT 0,
		status TEXT NOT NULL DEFAULT 'pending',
		attempts INTEGER NOT NULL DEFAULT 0,
		next_attempt_at DATETIME NOT NULL,
		last_error TEXT NOT NULL DEFAULT '',
		summary_id INTEGER NOT NULL DEFAULT 0,
		created_at DATETIME NOT NULL,
		updated_at DATETIME NOT NULL
	);
	CREATE UNIQUE INDEX summary_jobs_unique ON summary_jobs(session_id, kind, prompt_number);
	CREATE INDEX summary_jobs_due ON summary_jobs(status, next_attempt_at);

	CREATE TABLE token_ledger (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id INTEGER NOT NULL DEFAULT 0,
		summary_id INTEGER NOT NULL DEFAULT 0,
		day TEXT NOT NULL,
		generator TEXT NOT NULL,
		model TEXT NOT NULL DEFAULT '',
		input_tokens INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd REAL NOT NULL DEFAULT 0,
		created_at DATETIME NOT NULL
	);
	CREATE INDEX token_ledger_day ON token_ledger(day);
	CREATE INDEX token_ledger_session ON token_ledger(session_id);`,

	// 4: a summary job keeps Claude's answer of its turn, read when the job
	// is queued (the session row only holds the newest answer).
	`ALTER TABLE summary_jobs ADD COLUMN assistant_message TEXT NOT NULL DEFAULT '';`,

	// 5: covering indexes for the stats aggregates (per day, tool, failure,
	// file; all projects or one), so they read index pages only and never
	// the wide observation rows: on 1M rows (pure-Go SQLite, loaded 2-core
	// box) the 14-day stats went from 1.2 s to 0.14 s, one project's from
	// 38 ms to 6 ms. They extend, and replace, the two created_at indexes.
	// prompts get a created_at index for the same reason.
	`CREATE INDEX observations_stats ON observations(created_at, project, success, tool_name, files);
	CREATE INDEX observations_project_stats ON observations(project, created_at, success, tool_name, files);
	DROP INDEX observations_created;
	DROP INDEX observations_project_created;
	CREATE INDEX prompts_created ON prompts(created_at);`,

	// 6: the full-text tables get prefix indexes for 2 to 6 characters, so
	// a prefix* query of that length reads one posting list, in rowid order,
	// like a word: FTS5 otherwise merges the lists of every word with that
	// prefix, whole, for each MATCH (on 1M rows, 0.1 to 2.5 s for a common
	// prefix), and cannot stop early at the newest matches. Search accepts
	// prefixes of 3 characters or more, but the porter stemmer shortens
	// some before FTS5 looks them up (res* is searched as re*), hence 2.
	// FTS5 cannot add prefix indexes to a table, so the tables are made
	// again and rebuilt from their content tables, with a larger in-memory
	// hash for the rebuild (fewer segments to merge: a third less CPU),
	// set back to FTS5's default after. The triggers are those of
	// migration 2, unchanged.
	`DROP TRIGGER prompts_ai;
	DROP TRIGGER prompts_ad;
	DROP TRIGGER prompts_au;
	DROP TABLE prompts_fts;
	CREATE VIRTUAL TABLE prompts_fts USING fts5(text, content='prompts', content_rowid='id', tokenize='porter unicode61', prefix='2 3 4 5 6');
	INSERT INTO prompts_fts(prompts_fts, rank) VALUES ('hashsize', 33554432);
	INSERT INTO prompts_fts(prompts_fts) VALUES ('rebuild');
	INSERT INTO prompts_fts(prompts_fts, rank) VALUES ('hashsize', 1048576);
	CREATE TRIGGER prompts_ai AFTER INSERT ON prompts BEGIN
		INSERT INTO prompts_fts(rowid, text) VALUES (new.id, new.text);
	END;
	CREATE TRIGGER prompts_ad AFTER DELETE ON prompts BEGIN
		INSERT INTO prompts_fts(prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
	END;
	CREATE TRIGGER prompts_au AFTER UPDATE OF text ON prompts BEGIN
		INSERT INTO prompts_fts(prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
		INSERT INTO prompts_fts(rowid, text) VALUES (new.id, new.text);
	END;

	DROP TRIGGER observations_ai;
	DROP TRIGGER observations_ad;
	DROP TRIGGER observations_au;
	DROP TABLE observations_fts;
	CREATE VIRTUAL TABLE observations_fts USING fts5(title, input, output, files, content='observations', content_rowid='id', tokenize='porter unicode61', prefix='2 3 4 5 6');
	INSERT INTO observations_fts(observations_fts, rank) VALUES ('hashsize', 33554432);
	INSERT INTO observations_fts(observations_fts) VALUES ('rebuild');
	INSERT INTO observations_fts(observations_fts, rank) VALUES ('hashsize', 1048576);
	CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
		INSERT INTO observations_fts(rowid, title, input, output, files) VALUES (new.id, new.title, new.input, new.output, new.files);
	END;
	CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
		INSERT INTO observations_fts(observations_fts, rowid, title, input, output, files) VALUES ('delete', old.id, old.title, old.input, old.output, old.files);
	END;
	CREATE TRIGGER observations_au AFTER UPDATE OF title, input, output, files ON observations BEGIN
		INSERT INTO observations_fts(observations_fts, rowid, title, input, output, files) VALUES ('delete', old.id, old.title, old.input, old.output, old.files);
		INSERT INTO observations_fts(rowid, title, input, output, files) VALUES (new.id, new.title, new.input, new.output, new.files);
	END;

	DROP TRIGGER summaries_ai;
	DROP TRIGGER summaries_ad;
	DROP TRIGGER summaries_au;
	DROP TABLE summaries_fts;
	CREATE VIRTUAL TABLE summaries_fts USING fts5(request, investigated, learned, completed, next_steps, last_assistant_message, content='summaries', content_rowid='id', tokenize='porter unicode61', prefix='2 3 4 5 6');
	INSERT INTO summaries_fts(summaries_fts, rank) VALUES ('hashsize', 33554432);
	INSERT INTO summaries_fts(summaries_fts) VALUES ('rebuild');
	INSERT INTO summaries_fts(summaries_fts, rank) VALUES ('hashsize', 1048576);
	CREATE TRIGGER summaries_ai AFTER INSERT ON summaries BEGIN
		INSERT INTO summaries_fts(rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.last_assistant_message);
	END;
	CREATE TRIGGER summaries_ad AFTER DELETE ON summaries BEGIN
		INSERT INTO summaries_fts(summaries_fts, rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.last_assistant_message);
	END;
	CREATE TRIGGER summaries_au AFTER UPDATE ON summaries BEGIN
		INSERT INTO summaries_fts(summaries_fts, rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.last_assistant_message);
		INSERT INTO summaries_fts(rowid, request, investigated, learned, completed, next_steps, last_assistant_message) VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.last_assistant_message);
	END;`,
	// 7: what a Bash call ran, a test run's outcome and whether a write
	// created its file, as data (they were read back from display titles).
	// Bash calls stored before are marked '?' and classified by the worker
	// at start; a Write's title said "Created" when it made the file.
	`ALTER TABLE observations ADD COLUMN command_kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE observations ADD COLUMN test_outcome TEXT NOT NULL DEFAULT '';
	ALTER TABLE observations ADD COLUMN file_created INTEGER NOT NULL DEFAULT 0;
	UPDATE observations SET command_kind = '?' WHERE tool_name = 'Bash';
	UPDATE observations SET file_created = 1 WHERE tool_name = 'Write' AND kind = 'file_change' AND title LIKE 'Created %';`,
	// 8: observations are indexed for search off the commit path. The
	// insert trigger only queues the row in observations_fts_pending (a
	// B-tree insert); the store's indexer adds queued rows to the index in
	// large batches (Store.FlushSearchIndex), which every search runs
	// first, so search still sees every acknowledged write. FTS5 flushed
	// its in-memory index at every commit, which cost the group commit
	// half its time. A row deleted or updated while queued is only
	// dequeued or left queued: the index never holds it yet.
	`CREATE TABLE observations_fts_pending (id INTEGER PRIMARY KEY);
	DROP TRIGGER observations_ai;
	DROP TRIGGER observations_ad;
	DROP TRIGGER observations_au;
	CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
		INSERT INTO observations_fts_pending(id) VALUES (new.id);
	END;
	CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
		INSERT INTO observations_fts(observations_fts, rowid, title, input, output, files)
			SELECT 'delete', old.id, old.title, old.input, old.output, old.files
			WHERE NOT EXISTS (SELECT 1 FROM observations_fts_pending WHERE id = old.id);
		DELETE FROM observations_fts_pending WHERE id = old.id;
	END;
	CREATE TRIGGER observations_au AFTER UPDATE OF title, input, output, files ON observations
		WHEN NOT EXISTS (SELECT 1 FROM observations_fts_pending WHERE id = old.id) BEGIN
		INSERT INTO observations_fts(observations_fts, rowid, title, input, output, files) VALUES ('delete', old.id, old.title, old.input, old.output, old.files);
		INSERT INTO observations_fts(rowid, title, input, output, files) VALUES (new.id, new.title, new.input, new.output, new.files);
	END;`,
	// 9: forgetting (and retention) delete the events of the rows they
	// delete, by the row's id and the event's kind; without an index each
	// delete read the whole event log (on 1M events, seconds per
	// statement). Keyed by ref_id, not session: ids grow, so ingest adds
	// to the index at its end instead of at one place per live session
	// (each a page more to write per commit).
	`CREATE INDEX events_ref ON events(ref_id, kind);`,
	// 10: file states, what a file was when an observation touched it (see
	// FileState): keyed by the observation's (session_id, tool_use_id), known
	// before the observation is inserted. Observations stored earlier get
	// their paths with kind 'unknown', so the file gate finds them too.
	`CREATE TABLE file_states (
		session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		tool_use_id TEXT NOT NULL,
		path TEXT NOT NULL,
		kind TEXT NOT NULL,
		sha256 TEXT NOT NULL DEFAULT '',
		size INTEGER NOT NULL DEFAULT 0,
		mtime_ns INTEGER NOT NULL DEFAULT 0,
		UNIQUE (session_id, tool_use_id, path)
	);
	CREATE INDEX file_states_path ON file_states(path);
	INSERT OR IGNORE INTO file_states (session_id, tool_use_id, path, kind)
		SELECT o.session_id, o.tool_use_id, f.value, 'unknown' FROM observations o, json_each(o.files) f
		WHERE o.tool_use_id IS NOT NULL AND o.excluded_by = '' AND json_valid(o.files) AND f.type = 'text' AND f.value != '';
	CREATE TRIGGER observations_file_states_ad AFTER DELETE ON observations WHEN old.tool_use_id IS NOT NULL BEGIN
		DELETE FROM file_states WHERE session_id = old.session_id AND tool_use_id = old.tool_use_id;
	END;`,
	// 11: nothing reads the event log by time any more (retention and
	// forgetting find events by the ids of their rows, see migration 9),
	// so the created_at index only cost every event an insert and every
	// commit a page.
	`DROP INDEX IF EXISTS events_created;`,
	// 12: team mode's per-person API tokens (see APIToken), stored as the
	// SHA-256 of the token only, and who captured each session (the
	// person of the token its first event came with; '' for the owner).
	`CREATE TABLE api_tokens (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		person TEXT NOT NULL,
		token_hash TEXT NOT NULL UNIQUE,
		prefix TEXT NOT NULL,
		created_at DATETIME NOT NULL,
		last_used_at DATETIME,
		revoked_at DATETIME
	);
	ALTER TABLE sessions ADD COLUMN captured_by TEXT NOT NULL DEFAULT '';
	CREATE INDEX sessions_captured_by ON sessions(captured_by, started_at);`,
	// 13: memories (see Memory), one statement worth carrying forward
	// each, with their full-text index kept in step by triggers like
	// prompts'. A memory stated outside a session (through MCP, or by the
	// user) has no session_id; one extracted from a turn goes with its
	// session. The unique index makes a turn's extraction idempotent (a
	// summary job run twice stores its memories once).
	`CREATE TABLE memories (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
		project TEXT NOT NULL DEFAULT '',
		prompt_number INTEGER NOT NULL DEFAULT 0,
		source TEXT NOT NULL,
		kind TEXT NOT NULL,
		text TEXT NOT NULL,
		original_text TEXT NOT NULL,
		files TEXT NOT NULL DEFAULT '[]',
		idents TEXT NOT NULL DEFAULT '[]',
		terms TEXT NOT NULL DEFAULT '[]',
		change BOOLEAN NOT NULL DEFAULT 0,
		file_states TEXT NOT NULL DEFAULT '[]',
		state TEXT NOT NULL DEFAULT 'current',
		superseded_by INTEGER NOT NULL DEFAULT 0,
		pinned BOOLEAN NOT NULL DEFAULT 0,
		created_at DATETIME NOT NULL,
		updated_at DATETIME NOT NULL
	);
	CREATE INDEX memories_project_state ON memories(project, state, id);
	CREATE INDEX memories_session ON memories(session_id, prompt_number);
	CREATE INDEX memories_superseded_by ON memories(superseded_by) WHERE superseded_by != 0;
	CREATE UNIQUE INDEX memories_turn ON memories(session_id, prompt_number, source, kind, original_text);
	CREATE VIRTUAL TABLE memories_fts USING fts5(text, content='memories', content_rowid='id', tokenize='porter unicode61', prefix='2 3 4 5 6');
	CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
		INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
	END;
	CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
		INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
	END;
	CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories BEGIN
		INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
		INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
	END;`,
	// 14: the memories in force of a project, pinned ones first
	// (MemoriesInForce, the Memory page's order): the pinned few are
	// found without reading every memory in force of the project.
	`CREATE INDEX memories_in_force ON memories(project, state, pinned, id);`,
	// 15: embeddings (issue #26): one vector per searchable row, for
	// the model that made it, with the row's filter columns copied so a
	// search scans this table alone. Deleting a row (forget, retention)
	// deletes its vector; rewriting its text (re-applied redaction) does
	// too, so it is embedded again from the text as it now is.
	`CREATE TABLE embeddings (
		item_type TEXT NOT NULL,
		item_id INTEGER NOT NULL,
		session_id INTEGER NOT NULL,
		project TEXT NOT NULL,
		tool_name TEXT NOT NULL DEFAULT '',
		created_at DATETIME NOT NULL,
		model TEXT NOT NULL,
		vec BLOB NOT NULL,
		PRIMARY KEY (item_type, item_id)
	);
	CREATE INDEX embeddings_model_project ON embeddings(model, project);
	CREATE TRIGGER observations_embeddings_ad AFTER DELETE ON observations BEGIN
		DELETE FROM embeddings WHERE item_type = 'observation' AND item_id = old.id;
	END;
	CREATE TRIGGER observations_embeddings_au AFTER UPDATE OF title, input, output ON observations BEGIN
		DELETE FROM embeddings WHERE item_type = 'observation' AND item_id = old.id;
	END;
	CREATE TRIGGER prompts_embeddings_ad AFTER DELETE ON prompts BEGIN
		DELETE FROM embeddings WHERE item_type = 'prompt' AND item_id = old.id;
	END;
	CREATE TRIGGER prompts_embeddings_au AFTER UPDATE OF text ON prompts BEGIN
		DELETE FROM embeddings WHERE item_type = 'prompt' AND item_id = old.id;
	END;
	CREATE TRIGGER summaries_embeddings_ad AFTER DELETE ON summaries BEGIN
		DELETE FROM embeddings WHERE item_type = 'summary' AND item_id = old.id;
	END;
	CREATE TRIGGER summaries_embeddings_au AFTER UPDATE OF request, investigated, learned, completed, next_steps ON summaries BEGIN
		DELETE FROM embeddings WHERE item_type = 'summary' AND item_id = old.id;
	END;`,
	// 16: session titles (see Session.Title): a short line from the first
	// prompt or the summary's request, or one the user typed
	// (title_edited), which no automatic title replaces. Existing sessions
	// get theirs from what they hold (migrationFollowUps).
	`ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT '';
	ALTER TABLE sessions ADD COLUMN title_edited BOOLEAN NOT NULL DEFAULT 0;`,
	// 17: the feed orders events by the time of what they announce (an
	// imported turn of last month under today's work), see FeedEvents;
	// events and summaries stored before took the time they were written.
	eventTimesMigration,
	// 18: memories are embedded too (issue #26): forgetting a memory
	// deletes its vector, and editing its text does too, so it is
	// embedded again from the text as it now is.
	`CREATE TRIGGER memories_embeddings_ad AFTER DELETE ON memories BEGIN
		DELETE FROM embeddings WHERE item_type = 'memory' AND item_id = old.id;
	END;
	CREATE TRIGGER memories_embeddings_au AFTER UPDATE OF text ON memories BEGIN
		DELETE FROM embeddings WHERE item_type = 'memory' AND item_id = old.id;
	END;`,
	// 19: a memory's provenance (issue #33): who said it, the span it was
	// read from, what it is about, and when it was in force.
	`ALTER TABLE memories ADD COLUMN speaker TEXT NOT NULL DEFAULT '';
	ALTER TABLE memories ADD COLUMN speaker_ref TEXT NOT NULL DEFAULT '';
	ALTER TABLE memories ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
	ALTER TABLE memories ADD COLUMN subject TEXT NOT NULL DEFAULT '';
	ALTER TABLE memories ADD COLUMN in_force_at DATETIME;
	ALTER TABLE memories ADD COLUMN ended_at DATETIME;
	ALTER TABLE memories ADD COLUMN ended_by TEXT NOT NULL DEFAULT '';
	` + memoryProvenanceBackfill,
	// 20: Bash titles say what happened (issue #35): the rows stored
	// before get theirs from their command and output (migrationFollowUps).
	`SELECT 1`,
	// 21: who captured a forgotten session's id (SessionTombstone).
	sessionTombstonesMigration,
	// 22: failure signatures (issue #35, internal/failsig), indexed by
	// project for "seen before"; the failures stored before get theirs
	// from what they hold (migrationFollowUps).
	signatureMigration,
}

// sessionTombstonesMigration is migration 21 on both backends.
const sessionTombstonesMigration = `CREATE TABLE session_tombstones (
		id_hash TEXT PRIMARY KEY,
		captured_by TEXT NOT NULL DEFAULT ''
	)`

// signatureMigration is the same on both backends: a column, and a
// partial index of the rows that have one, by project, newest last.
const signatureMigration = `ALTER TABLE observations ADD COLUMN signature TEXT NOT NULL DEFAULT '';
	CREATE INDEX observations_signature ON observations(project, signature, id) WHERE signature <> '';`

// memoryProvenanceBackfill gives the memories stored before provenance
// the best of it their rows allow, on both backends (UPDATE … FROM):
//   - the speaker by the source (a prompt or the Memory page: the user;
//     an answer, a summary or MCP: Claude), a teammate by the session's
//     captured_by; nothing says whether an old answer memory was a quote;
//   - in force from when it was made; a memory no longer current ended
//     at its row's last change (the supersession, completion or retiring
//     is what changes a row last), by the speaker of what replaced it,
//     by Claude for a done todo, by the user for a retired one;
//   - a teammate's memory in force becomes a proposal the owner reviews
//     (the trust model's default): from now on it was never in force.
const memoryProvenanceBackfill = `UPDATE memories SET speaker = CASE WHEN source IN ('prompt', 'user') THEN 'user' ELSE 'claude' END;
	UPDATE memories SET speaker = 'teammate', speaker_ref = s.captured_by FROM sessions s
		WHERE s.id = memories.session_id AND s.captured_by <> '';
	UPDATE memories SET in_force_at = created_at;
	UPDATE memories SET ended_at = updated_at WHERE state <> 'current';
	UPDATE memories SET ended_by = CASE WHEN n.speaker = 'teammate' THEN 'teammate:' || n.speaker_ref ELSE n.speaker END
		FROM memories n WHERE memories.state = 'superseded' AND n.id = memories.superseded_by;
	UPDATE memories SET ended_by = 'claude' WHERE state = 'done';
	UPDATE memories SET ended_by = 'user' WHERE state = 'retired';
	UPDATE memories SET state = 'proposed', in_force_at = NULL
		WHERE speaker = 'teammate' AND state = 'current';
	CREATE INDEX memories_speaker ON memories(project, speaker, state);`

// migrationFollowUps run in Go, in the same transaction as the migration
// of their version (by number): what SQL alone cannot do well.
var migrationFollowUps = map[int]func(ctx context.Context, tx *sql.Tx, postgres bool) error{
	16: backfillTitles,
	20: retitleBash,
	22: backfillSignatures,
}

// eventTimesMigration gives the event log an index by time and moves the
// rows stored before it to the time of what they announce: a summary to
// its turn's last prompt or tool call (the session's end for a final one,
// never later than it was written), an event to its row's time. It is the
// same on both backends (UPDATE … FROM, SQLite 3.33 and later).
const eventTimesMigration = `CREATE INDEX events_time ON events(created_at, id);
	UPDATE summaries SET created_at = t.at FROM (
		SELECT s.id AS id, MAX(x.created_at) AS at FROM summaries s
		JOIN (SELECT session_id, number AS n, created_at FROM prompts
			UNION ALL SELECT session_id, prompt_number AS n, created_at FROM observations) x
			ON x.session_id = s.session_id AND (x.n = s.prompt_number OR (s.kind = 'intermediate' AND x.n < s.prompt_number))
		WHERE s.kind IN ('turn', 'intermediate') GROUP BY s.id) t
	WHERE summaries.id = t.id AND summaries.created_at > t.at;
	UPDATE summaries SET created_at = s.ended_at FROM sessions s
	WHERE summaries.kind = 'final' AND s.id = summaries.session_id AND s.ended_at IS NOT NULL AND summaries.created_at > s.ended_at;
	UPDATE events SET created_at = r.created_at FROM observations r WHERE events.kind = 'observation' AND r.id = events.ref_id AND events.created_at <> r.created_at;
	UPDATE events SET created_at = r.created_at FROM prompts r WHERE events.kind = 'prompt' AND r.id = events.ref_id AND events.created_at <> r.created_at;
	UPDATE events SET created_at = r.created_at FROM summaries r WHERE events.kind = 'summary' AND r.id = events.ref_id AND events.created_at <> r.created_at;
	UPDATE events SET created_at = r.started_at FROM sessions r WHERE events.kind = 'session_started' AND r.id = events.ref_id AND events.created_at <> r.started_at;
	UPDATE events SET created_at = r.ended_at FROM sessions r WHERE events.kind = 'session_completed' AND r.id = events.ref_id AND r.ended_at IS NOT NULL AND events.created_at > r.ended_at;`

// SchemaVersion is the schema version this binary migrates to.
func SchemaVersion() int { return len(migrations) }

func (s *Store) migrate(ctx context.Context) error {
	// Migrations hold several statements each, so they run on the plain
	// database/sql handle rather than GORM's prepared-statement pool.
	db, err := s.db.DB()
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at DATETIME NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: read version: %w", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("migrate: database schema version %d is newer than this mneme (%d); upgrade mneme", current, len(migrations))
	}
	for v := current; v < len(migrations); v++ {
		if err := applyMigration(ctx, db, v+1, migrations[v]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v+1, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, version int, stmt string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return err
	}
	if f := migrationFollowUps[version]; f != nil {
		if err := f(ctx, tx, false); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`, version, time.Now().UTC()); err != nil {
		return err
	}
	return tx.Commit()
}
