-- A chat's context records go with the chat (issue 13 item 5): deleting a session deletes the
-- records of its turns (what was put in front of the model is the chat's content too), and the
-- records of chats deleted before this migration are removed now.
CREATE TRIGGER sessions_delete_context_records AFTER DELETE ON sessions
BEGIN
  DELETE FROM context_records WHERE session_id = OLD.id;
END;

DELETE FROM context_records WHERE session_id NOT IN (SELECT id FROM sessions);
