// Package narada waits for Narada browser-automation tasks.
//
// Narada's Remote Dispatch API runs a prompt in a browser agent: POST
// /remote-dispatch answers 202 with a requestId, and GET
// /remote-dispatch/responses/{requestId} reports "pending" until the task
// ends in "success" or "error", or stops at "input-required" to ask the
// user something. Optionally Narada POSTs the finished task to a
// callbackUrl, echoing a callbackSecret inside the payload.
//
// Dispatch and wait in one call:
//
//	c, err := narada.New(os.Getenv("NARADA_API_KEY"))
//	if err != nil { ... }
//	task, err := c.Run(ctx, narada.DispatchRequest{
//		Prompt:          "/Operator search for software engineering jobs",
//		BrowserWindowID: windowID,
//	}, poll.WithNotify(func(a poll.Attempt) { log.Println(a.N, a.Status) }))
//	switch {
//	case errors.Is(err, poll.ErrInputRequired):
//		fmt.Println("the agent asks:", task.Response.Text)
//	case err != nil:
//		return err // task.RequestID still names the task
//	default:
//		fmt.Println(task.Response.Text)
//	}
//
// Waits first poll after [TaskFirstPoll] (10 s), then with [TaskBackoff]
// (every 10% of the time waited, 10 s to 1 min), for at most
// [DefaultTaskTimeout] (15 min); any poll.Option overrides them.
// "input-required" is final by default; [WithWaitThroughInputRequired]
// keeps waiting through it as poll.Waiting. Dispatch is never retried,
// since the API has no idempotency key.
//
// For webhook speed with polling as the fallback, mount a [Webhooks]
// handler at the CallbackURL, dispatch with its CallbackSecret, and give
// the client [WithWebhooks]: a callback then wakes the wait at once.
//
// Package naradatest provides a fake server for tests.
package narada
