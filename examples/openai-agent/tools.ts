// The support agent's tools: plain async functions, plus the function schemas the model
// sees. issue_refund has a side effect (it appends to `refunds`), so a test can prove that
// a replay never refunds again.
import type OpenAI from "openai";

export interface Order {
  orderId: string;
  item: string;
  total: number;
  status: "delivered" | "shipped";
}

export interface Refund {
  refundId: string;
  orderId: string;
  amount: number;
  reason: string;
}

/** Every refund this process issued. Replays must leave it empty. */
export const refunds: Refund[] = [];

const ORDERS: Record<string, Order> = {
  A1001: { orderId: "A1001", item: "electric kettle", total: 39.9, status: "delivered" },
  A1002: { orderId: "A1002", item: "teapot", total: 24.5, status: "shipped" },
};

export async function lookup_order({ orderId }: { orderId: string }): Promise<Order> {
  const order = ORDERS[orderId];
  if (!order) throw new Error(`no order "${orderId}": order ids look like A1001`);
  return order;
}

export async function issue_refund({
  orderId,
  amount,
  reason,
}: {
  orderId: string;
  amount: number;
  reason: string;
}): Promise<Refund> {
  const order = await lookup_order({ orderId });
  if (amount > order.total)
    throw new Error(`refund of ${amount} exceeds the order total ${order.total}: refund at most the total`);
  const refund = { refundId: `RF-${orderId}`, orderId, amount, reason };
  refunds.push(refund);
  return refund;
}

export const tools = { lookup_order, issue_refund };
export type SupportTools = { [K in keyof typeof tools]: (input: Parameters<(typeof tools)[K]>[0]) => Promise<unknown> };

export const toolDefinitions: OpenAI.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "lookup_order",
      description: "Look up an order by its id.",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
    },
  },
  {
    type: "function",
    function: {
      name: "issue_refund",
      description: "Refund an order, in full or in part.",
      parameters: {
        type: "object",
        properties: { orderId: { type: "string" }, amount: { type: "number" }, reason: { type: "string" } },
        required: ["orderId", "amount", "reason"],
      },
    },
  },
];
