-- svc_inbox_deposit of 0002_inbox_functions, which now also answers previous_received_at for a
-- stored blob: the recipient's receivedAt just before this one (the previous stored deposit's,
-- also within the batch, or the registration's starting value). No blob of the recipient has a
-- receivedAt between the two, so a bridge whose cursor is previous_received_at may take this blob
-- without reading.
DROP FUNCTION svc_inbox_deposit(
  text[], text[], bytea, integer[], bytea, text[], bigint[], bigint, integer
);

CREATE FUNCTION svc_inbox_deposit(
  p_address text[], p_msg_id text[], p_ciphertexts bytea, p_ciphertext_ends integer[],
  p_sender_keys bytea, p_sender text[], p_expires_at bigint[], p_now bigint, p_quota integer
) RETURNS TABLE (
  outcome text, received_at bigint, previous_received_at bigint, oldest_expires_at bigint
)
LANGUAGE plpgsql AS $$
DECLARE
  v_recipients text[];
  v_last bigint[];
  v_stored integer[];
  -- Exact unexpired count and oldest expiry of a recipient, counted once it nears the quota.
  v_unexpired integer[];
  v_oldest bigint[];
  v_r integer;
  v_count integer;
  v_min bigint;
  v_start integer;
  v_sender_key bytea;
  v_found_key bytea;
  v_found_expires_at bigint;
  v_exists boolean;
  v_row record;
BEGIN
  SELECT array_agg(DISTINCT a ORDER BY a) INTO v_recipients FROM unnest(p_address) AS a;
  v_last := array_fill(NULL::bigint, ARRAY[cardinality(v_recipients)]);
  v_stored := array_fill(NULL::integer, ARRAY[cardinality(v_recipients)]);
  v_unexpired := v_stored;
  v_oldest := v_last;
  FOR v_row IN
    SELECT r.address, r.last_received_at, r.stored_blobs FROM inbox_registrations AS r
    WHERE r.address = ANY (v_recipients) ORDER BY r.address FOR NO KEY UPDATE
  LOOP
    v_r := array_position(v_recipients, v_row.address);
    v_last[v_r] := v_row.last_received_at;
    v_stored[v_r] := v_row.stored_blobs;
  END LOOP;

  FOR i IN 1 .. cardinality(p_address) LOOP
    outcome := NULL; received_at := NULL; previous_received_at := NULL; oldest_expires_at := NULL;
    v_r := array_position(v_recipients, p_address[i]);
    v_start := CASE WHEN i = 1 THEN 1 ELSE p_ciphertext_ends[i - 1] + 1 END;
    v_sender_key := substring(p_sender_keys FROM 32 * i - 31 FOR 32);
    SELECT b.sender_key, b.expires_at INTO v_found_key, v_found_expires_at
    FROM inbox_blobs AS b WHERE b.address = p_address[i] AND b.msg_id = p_msg_id[i];
    v_exists := FOUND;

    IF v_last[v_r] IS NULL THEN
      outcome := 'not_registered';
    ELSIF v_exists AND v_found_expires_at > p_now THEN
      outcome := CASE WHEN v_found_key = v_sender_key THEN 'repeat' ELSE 'wrong_key' END;
    ELSE
      IF v_stored[v_r] >= p_quota AND v_unexpired[v_r] IS NULL THEN
        SELECT count(*), min(b.expires_at) INTO v_count, v_min
        FROM inbox_blobs AS b WHERE b.address = p_address[i] AND b.expires_at > p_now;
        v_unexpired[v_r] := v_count;
        v_oldest[v_r] := v_min;
      END IF;
      IF v_unexpired[v_r] >= p_quota THEN
        outcome := 'quota';
        oldest_expires_at := v_oldest[v_r];
      ELSE
        previous_received_at := v_last[v_r];
        v_last[v_r] := greatest(p_now, v_last[v_r] + 1);
        IF v_exists THEN
          -- An expired blob of the same msgId still waits for the pruner: the deposit replaces it.
          UPDATE inbox_blobs AS b SET
            ciphertext = substring(p_ciphertexts FROM v_start FOR p_ciphertext_ends[i] - v_start + 1),
            sender_key = v_sender_key, sender = p_sender[i],
            received_at = v_last[v_r], expires_at = p_expires_at[i]
          WHERE b.address = p_address[i] AND b.msg_id = p_msg_id[i];
        ELSE
          INSERT INTO inbox_blobs
            (address, msg_id, ciphertext, sender_key, sender, received_at, expires_at)
          VALUES (p_address[i], p_msg_id[i],
            substring(p_ciphertexts FROM v_start FOR p_ciphertext_ends[i] - v_start + 1),
            v_sender_key, p_sender[i], v_last[v_r], p_expires_at[i]);
          v_stored[v_r] := v_stored[v_r] + 1;
        END IF;
        v_unexpired[v_r] := v_unexpired[v_r] + 1;
        v_oldest[v_r] := least(v_oldest[v_r], p_expires_at[i]);
        outcome := 'stored';
        received_at := v_last[v_r];
      END IF;
    END IF;
    RETURN NEXT;
  END LOOP;

  UPDATE inbox_registrations AS r SET last_received_at = s.last, stored_blobs = s.stored
  FROM unnest(v_recipients, v_last, v_stored) AS s(address, last, stored)
  WHERE r.address = s.address AND (r.last_received_at, r.stored_blobs) <> (s.last, s.stored);
END
$$;
