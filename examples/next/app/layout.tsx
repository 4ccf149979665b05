import type { ReactNode } from 'react';

export const metadata = { title: 'Toko Kopi' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 560, margin: '3rem auto', padding: '0 1rem' }}>{children}</body>
    </html>
  );
}
