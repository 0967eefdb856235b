-- Skills' optional files (issue 17 item 2 "optional files"): a JSON array of {path, content} (relative
-- paths, UTF-8 text, at most 16 files of 64 KiB), at the current version and in every kept version.
-- '[]' for every skill written before: their sha256 (the SKILL.md form only) stays as it was.
ALTER TABLE skills ADD COLUMN files_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE skill_versions ADD COLUMN files_json TEXT NOT NULL DEFAULT '[]';
