// The checkout form. Its Idempotency-Key is made when the form is rendered and kept (with the form token and what
// was submitted) in sessionStorage until a new order is started, so reloading and resubmitting sends the same key and
// gets the first answer back. The button is disabled while a submission runs, but nothing relies on that: the key
// makes every resubmission of this form the same request, and the one-time token refuses a second key for it.
'use strict';

const STORE = 'onceonly-checkout';
const $ = (id) => document.getElementById(id);

let state = JSON.parse(sessionStorage.getItem(STORE) || 'null') || {};

function save() {
  sessionStorage.setItem(STORE, JSON.stringify(state));
}

function authorization() {
  return 'Basic ' + btoa($('user').value + ':' + $('password').value);
}

async function prepare() {
  if (state.user) {
    $('user').value = state.user;
    $('password').value = state.user + '-pass';
  }
  if (!state.key || state.user !== $('user').value) {
    await newForm();
  }
  render();
}

async function newForm() {
  state = { user: $('user').value, key: crypto.randomUUID(), token: null, request: null, order: null };
  try {
    const response = await fetch('/api/checkout/token', { headers: { Authorization: authorization() } });
    if (response.ok) {
      state.token = (await response.json()).formToken;
    } else {
      show(await problemText(response));
    }
  } catch (e) {
    show('The service is not reachable: ' + e.message);
  }
  save();
}

function render() {
  $('idempotency-key').textContent = state.key || '';
  $('form-token').textContent = state.token || '(none: the service has no Redis now)';
  if (state.request) {
    $('sku').value = String(state.request.skuId);
    $('quantity').value = String(state.request.quantity);
  }
  // What was submitted under this key stays as it was: another request under it would be refused.
  $('sku').disabled = $('quantity').disabled = state.request !== null;
  $('new-order').hidden = state.request === null;
  if (state.order) {
    $('status').textContent = 'Order placed.';
    $('order').hidden = false;
    $('order-no').textContent = state.order.orderNo;
    $('replayed').textContent = state.order.replayed ? 'replayed (the first answer, sent again)' : 'first answer';
  } else {
    $('status').textContent = state.request ? 'Submitted; not confirmed yet.' : 'Ready.';
    $('order').hidden = true;
  }
}

function show(problem) {
  $('problem').textContent = problem;
  $('problem').hidden = !problem;
}

async function problemText(response) {
  try {
    const problem = await response.json();
    return (problem.title || response.status) + ': ' + (problem.detail || '');
  } catch (e) {
    return 'HTTP ' + response.status;
  }
}

async function place(event) {
  event.preventDefault();
  $('place').disabled = true;
  show('');
  if (!state.request) {
    state.request = { skuId: Number($('sku').value), quantity: Number($('quantity').value) };
    save();
    render();
  }
  try {
    await submit();
  } finally {
    $('place').disabled = false;
  }
}

async function submit() {
  for (;;) {
    let response;
    try {
      response = await fetch('/api/checkout', {
        method: 'POST',
        headers: { Authorization: authorization(), 'Content-Type': 'application/json', 'Idempotency-Key': state.key },
        body: JSON.stringify({ formToken: state.token, skuId: state.request.skuId, quantity: state.request.quantity })
      });
    } catch (e) {
      show('No answer (' + e.message + '); submit again: it is the same order.');
      return;
    }
    if (response.ok) {
      const created = await response.json();
      state.order = { orderNo: created.orderNo, replayed: response.headers.get('Idempotent-Replayed') === 'true' };
      save();
      render();
      return;
    }
    const type = await problemType(response.clone());
    if (type.endsWith('/request-in-progress')) {
      // The first submission still runs: ask again when the service says, under the same key.
      const seconds = Number(response.headers.get('Retry-After') || '1');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      continue;
    }
    const text = await problemText(response);
    if (type.endsWith('/form-token-used') || type.endsWith('/form-token-invalid')) {
      // This form instance is spent: the next submission is a new form, with a new key and token.
      await newForm();
      render();
    }
    show(text);
    return;
  }
}

async function problemType(response) {
  try {
    return (await response.json()).type || '';
  } catch (e) {
    return '';
  }
}

$('checkout').addEventListener('submit', place);
$('new-order').addEventListener('click', async () => {
  show('');
  await newForm();
  render();
});
$('user').addEventListener('change', () => {
  $('password').value = $('user').value + '-pass';
  newForm().then(render);
});
prepare();
