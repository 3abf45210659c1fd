import { ReplyQueues } from '../../../src/dev/model-server/reply-queues';

const text = (value: string) => ({ text: value });

describe('ReplyQueues', () => {
  it("answers from the marker's own queue among thousands, and never from the global one", () => {
    const queues = new ReplyQueues();
    queues.push([text('global')]);
    for (let index = 0; index < 20_000; index++) queues.pushFor(`[bench-${index}]`, [text(`reply ${index}`)]);

    expect(queues.take('[bench-12345] do the action')).toEqual({ reply: text('reply 12345'), marker: '[bench-12345]' });
    // Used up: the request is still that marker's, so it gets no reply rather than someone else's.
    expect(queues.take('[bench-12345] do the action')).toEqual({ reply: undefined, marker: '[bench-12345]' });
    expect(queues.take('no marker here')).toEqual({ reply: text('global'), marker: undefined });
    expect(queues.remaining()).toBe(19_999);
  });

  it('finds a marker inside a longer bracketed run, and markers of any shape', () => {
    const queues = new ReplyQueues();
    queues.pushFor('[a]', [text('a')]);
    queues.pushFor('[a[b]', [text('a[b')]);
    queues.pushFor('ticket-9', [text('ticket')]);

    expect(queues.take('see [x[a]] now')).toEqual({ reply: text('a'), marker: '[a]' });
    expect(queues.take('see z[a[b] now')).toEqual({ reply: text('a[b'), marker: '[a[b]' });
    expect(queues.take('about ticket-9, [unscripted]')).toEqual({ reply: text('ticket'), marker: 'ticket-9' });
    expect(queues.take('[a] with no closing [b')).toEqual({ reply: undefined, marker: '[a]' });
  });

  it('answers a message with several markers from the one scripted first that has replies left', () => {
    const queues = new ReplyQueues();
    queues.pushFor('plain', [text('plain 1')]);
    queues.pushFor('[second]', [text('second 1'), text('second 2')]);

    const message = '[second] and plain';
    expect(queues.take(message).reply).toEqual(text('plain 1'));
    expect(queues.take(message).reply).toEqual(text('second 1'));
    expect(queues.take(message).reply).toEqual(text('second 2'));
    expect(queues.take(message)).toEqual({ reply: undefined, marker: 'plain' });
  });

  it('forgets every marker on clear', () => {
    const queues = new ReplyQueues();
    queues.pushFor('[gone]', [text('x')]);
    queues.pushFor('gone too', [text('y')]);
    queues.clear();
    queues.push([text('global')]);
    expect(queues.take('[gone] gone too')).toEqual({ reply: text('global'), marker: undefined });
  });
});
