package durable

// Subscribe returns the outcomes of the waits that end in this process
// (worked here, or cancelled here), as they end, each once. The channel
// is closed by cancel, or when the client stops. A subscriber more than
// 1024 outcomes behind misses the ones that do not fit (a warning is
// logged); [Client.Get] and [Client.Await] never miss one.
//
// Outcomes decided in other processes do not come through here: await
// those with [Client.Await]. Subscribe works before Start too; outcomes
// arrive once the client works waits.
func (c *Client) Subscribe() (outcomes <-chan *Result, cancel func()) {
	return c.hub.subscribe()
}
