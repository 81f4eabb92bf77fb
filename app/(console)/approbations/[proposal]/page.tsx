import type { Metadata } from "next";
import { ApprovalScreen } from "@/components/approvals/approval-screen";
import { Role } from "@/lib/auth/scopes";
import { requireMember } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Décision d’approbation" };

export default async function ApprovalPage({ params }: { params: Promise<{ proposal: string }> }) {
  const [{ proposal }, member] = await Promise.all([params, requireMember()]);
  return <ApprovalScreen id={proposal} viewer={{ id: member.id, role: Role.parse(member.role) }} />;
}
