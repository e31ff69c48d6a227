package extract_test

import (
	"fmt"

	"github.com/mneme-dev/mneme/internal/memory/extract"
)

func ExampleFromAnswer() {
	answer := `Done — retries now survive a restart.

Key decisions:
- Stored pending deliveries in the ` + "`webhook_outbox`" + ` table instead of a channel, so a crash doesn't drop them.
- Went with exponential backoff capped at 10 minutes.

Next steps:
- Alert when the outbox holds more than 1,000 rows.`
	for _, m := range extract.FromAnswer(answer) {
		fmt.Printf("%s: %s\n", m.Kind, m.Text)
	}
	// Output:
	// decision: Stored pending deliveries in the `webhook_outbox` table instead of a channel, so a crash doesn't drop them.
	// decision: Went with exponential backoff capped at 10 minutes.
	// todo: Alert when the outbox holds more than 1,000 rows.
}

func ExampleSupersedes() {
	older := extract.FromAnswer("Key decisions:\n- Went with Asynq for the job queue, it was quick to set up.")[0]
	newer := extract.FromAnswer("I switched the job queue from Asynq to River instead.")[0]
	todo := extract.FromAnswer("Next steps:\n- Port the `SendReceipt` job to the new queue.")[0]
	fmt.Println(extract.Supersedes(newer, older), extract.Supersedes(older, newer))
	fmt.Println(extract.Completes("Ported the `SendReceipt` job to River.", todo))
	// Output:
	// true false
	// true
}
