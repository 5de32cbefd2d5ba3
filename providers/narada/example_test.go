package narada_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// The examples run against the fake server and poll at once, then every
// few milliseconds; against the real API, leave the defaults
// (TaskFirstPoll, TaskBackoff, DefaultTaskTimeout).
var (
	pollAtOnce     = poll.WithInitialDelay(0)
	exampleBackoff = poll.WithBackoff(poll.Constant(5 * time.Millisecond))
)

func ExampleClient_Run() {
	srv := naradatest.NewServer()
	defer srv.Close()
	srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusSuccess, Text: "Found 1,234 software engineering job listings.", AfterPolls: 2})
	c := srv.Client() // narada.New(os.Getenv("NARADA_API_KEY")) for the real API

	task, err := c.Run(context.Background(), narada.DispatchRequest{
		Prompt:          "/Operator search for software engineering jobs",
		BrowserWindowID: "your-browser-window-id",
	}, pollAtOnce, exampleBackoff)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(task.Status+":", task.Response.Text)
	// Output: success: Found 1,234 software engineering job listings.
}

func ExampleClient_WaitForTask() {
	srv := naradatest.NewServer()
	defer srv.Close()
	id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{
		{Status: narada.StatusSuccess, Text: "Done.", AfterPolls: 3},
	}})
	c := srv.Client()

	task, err := c.WaitForTask(context.Background(), id, pollAtOnce, exampleBackoff,
		poll.WithNotify(func(a poll.Attempt) {
			if a.Changed {
				fmt.Printf("attempt %d: %s\n", a.N, a.Status)
			}
		}))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("result:", task.Response.Text)
	// Output:
	// attempt 1: running ("pending")
	// attempt 4: succeeded ("success")
	// result: Done.
}

func ExampleClient_WaitForTask_inputRequired() {
	srv := naradatest.NewServer()
	defer srv.Close()
	id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{
		{Status: narada.StatusInputRequired, Text: "The task requires authentication. Please log in to continue.", AfterPolls: 1},
	}})

	task, err := srv.Client().WaitForTask(context.Background(), id, pollAtOnce, exampleBackoff)
	switch {
	case errors.Is(err, poll.ErrInputRequired):
		fmt.Println("the agent asks:", task.Response.Text)
	case err != nil:
		fmt.Println("error:", err)
	default:
		fmt.Println("result:", task.Response.Text)
	}
	// Output: the agent asks: The task requires authentication. Please log in to continue.
}

func ExampleWithWaitThroughInputRequired() {
	srv := naradatest.NewServer()
	defer srv.Close()
	id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{
		{Status: narada.StatusInputRequired, Text: "Please log in.", AfterPolls: 1},
		{Status: narada.StatusSuccess, Text: "Logged in, done.", AfterPolls: 4},
	}})
	c := srv.Client(narada.WithWaitThroughInputRequired())

	task, err := c.WaitForTask(context.Background(), id, pollAtOnce, exampleBackoff,
		poll.WithTimeout(time.Hour), // a person has to act
		poll.WithNotify(func(a poll.Attempt) {
			if a.Changed && a.Status.State == poll.Waiting {
				fmt.Println("page the operator:", a.Status.Reason)
			}
		}))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("result:", task.Response.Text)
	// Output:
	// page the operator: Please log in.
	// result: Logged in, done.
}

func ExampleWebhooks() {
	srv := naradatest.NewServer()
	defer srv.Close()
	srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusSuccess, Text: "Done.", After: 50 * time.Millisecond})

	// Mount the handler at your CallbackURL (a public HTTPS URL for the
	// real API; the fake calls loopback http).
	hooks, err := narada.NewWebhooks("a-long-random-secret")
	if err != nil {
		fmt.Println(err)
		return
	}
	receiver := httptest.NewServer(hooks)
	defer receiver.Close()

	// With the defaults the first poll is due after 10 s; the webhook
	// wakes the wait as soon as the task is done, and polling remains the
	// fallback if it is lost.
	c := srv.Client(narada.WithWebhooks(hooks))
	task, err := c.Run(context.Background(), narada.DispatchRequest{
		Prompt:          "/Operator search for software engineering jobs",
		BrowserWindowID: "your-browser-window-id",
		CallbackURL:     receiver.URL + "/hooks/narada",
		CallbackSecret:  "a-long-random-secret",
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(task.Response.Text, "polls:", srv.Polls(task.RequestID))
	// Output: Done. polls: 1
}

func ExampleParseWebhook() {
	// In your own handler, when you do not use Webhooks.
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := narada.ParseWebhook(r, "a-long-random-secret")
		switch {
		case errors.Is(err, narada.ErrWebhookSecret):
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Println("task", p.RequestID, "ended:", p.Status)
		w.WriteHeader(http.StatusNoContent)
	})

	srv := naradatest.NewServer()
	defer srv.Close()
	receiver := httptest.NewServer(handler)
	defer receiver.Close()
	srv.AddTask(naradatest.Task{
		RequestID:      "req_abc123def456",
		CallbackURL:    receiver.URL,
		CallbackSecret: "a-long-random-secret",
		Steps:          []naradatest.Step{{Status: narada.StatusSuccess}},
	})
	for len(srv.Deliveries("req_abc123def456")) == 0 {
		time.Sleep(time.Millisecond)
	}
	// Output: task req_abc123def456 ended: success
}

func ExampleTaskStatus() {
	for _, word := range []string{"pending", "success", "error", "input-required", "paused"} {
		st := narada.TaskStatus(&narada.TaskResponse{Status: word})
		fmt.Printf("%-14s → %-14s final=%v\n", word, st.State, st.State.Final())
	}
	// Output:
	// pending        → running        final=false
	// success        → succeeded      final=true
	// error          → failed         final=true
	// input-required → input_required final=true
	// paused         → unknown        final=false
}
