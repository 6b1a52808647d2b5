/** The fixed niche taxonomy (docs/search.md). */
export const NICHES = [
  'beauty', 'fashion', 'fitness', 'food', 'travel', 'gaming', 'tech', 'finance', 'parenting', 'music',
  'comedy', 'education', 'sports', 'lifestyle', 'pets', 'automotive', 'home', 'health', 'art', 'business',
] as const;
export type Niche = (typeof NICHES)[number];

export const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitch', 'x'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Platform mix of the demo data and each platform's typical engagement rate (percent) at 10k followers. */
export const PLATFORM_PROFILE: ReadonlyArray<{ platform: Platform; weight: number; baseEr: number; viewRate: number }> = [
  { platform: 'instagram', weight: 0.38, baseEr: 3.2, viewRate: 0.25 },
  { platform: 'tiktok', weight: 0.28, baseEr: 6.5, viewRate: 0.9 },
  { platform: 'youtube', weight: 0.18, baseEr: 3.0, viewRate: 0.35 },
  { platform: 'x', weight: 0.1, baseEr: 1.1, viewRate: 0.15 },
  { platform: 'twitch', weight: 0.06, baseEr: 2.2, viewRate: 0.12 },
];

/** ~40 countries, weighted toward the US, each with its main language and three cities. */
export const COUNTRIES: ReadonlyArray<{ code: string; weight: number; language: string; cities: [string, string, string] }> = [
  { code: 'US', weight: 30, language: 'en', cities: ['Los Angeles', 'New York', 'Miami'] },
  { code: 'GB', weight: 6, language: 'en', cities: ['London', 'Manchester', 'Birmingham'] },
  { code: 'IN', weight: 6, language: 'hi', cities: ['Mumbai', 'Delhi', 'Bengaluru'] },
  { code: 'BR', weight: 6, language: 'pt', cities: ['São Paulo', 'Rio de Janeiro', 'Belo Horizonte'] },
  { code: 'MX', weight: 4, language: 'es', cities: ['Mexico City', 'Guadalajara', 'Monterrey'] },
  { code: 'ID', weight: 4, language: 'id', cities: ['Jakarta', 'Surabaya', 'Bandung'] },
  { code: 'CA', weight: 3, language: 'en', cities: ['Toronto', 'Vancouver', 'Montreal'] },
  { code: 'DE', weight: 3, language: 'de', cities: ['Berlin', 'Munich', 'Hamburg'] },
  { code: 'FR', weight: 3, language: 'fr', cities: ['Paris', 'Lyon', 'Marseille'] },
  { code: 'ES', weight: 3, language: 'es', cities: ['Madrid', 'Barcelona', 'Valencia'] },
  { code: 'IT', weight: 2.5, language: 'it', cities: ['Milan', 'Rome', 'Naples'] },
  { code: 'AU', weight: 2.5, language: 'en', cities: ['Sydney', 'Melbourne', 'Brisbane'] },
  { code: 'PH', weight: 2.5, language: 'tl', cities: ['Manila', 'Quezon City', 'Cebu City'] },
  { code: 'TR', weight: 2, language: 'tr', cities: ['Istanbul', 'Ankara', 'Izmir'] },
  { code: 'JP', weight: 2, language: 'ja', cities: ['Tokyo', 'Osaka', 'Yokohama'] },
  { code: 'KR', weight: 1.5, language: 'ko', cities: ['Seoul', 'Busan', 'Incheon'] },
  { code: 'AR', weight: 1.5, language: 'es', cities: ['Buenos Aires', 'Córdoba', 'Rosario'] },
  { code: 'CO', weight: 1.5, language: 'es', cities: ['Bogotá', 'Medellín', 'Cali'] },
  { code: 'NG', weight: 1.5, language: 'en', cities: ['Lagos', 'Abuja', 'Ibadan'] },
  { code: 'ZA', weight: 1, language: 'en', cities: ['Johannesburg', 'Cape Town', 'Durban'] },
  { code: 'NL', weight: 1, language: 'nl', cities: ['Amsterdam', 'Rotterdam', 'Utrecht'] },
  { code: 'PL', weight: 1, language: 'pl', cities: ['Warsaw', 'Kraków', 'Wrocław'] },
  { code: 'SE', weight: 0.8, language: 'sv', cities: ['Stockholm', 'Gothenburg', 'Malmö'] },
  { code: 'TH', weight: 1, language: 'th', cities: ['Bangkok', 'Chiang Mai', 'Phuket'] },
  { code: 'VN', weight: 1, language: 'vi', cities: ['Ho Chi Minh City', 'Hanoi', 'Da Nang'] },
  { code: 'EG', weight: 1, language: 'ar', cities: ['Cairo', 'Alexandria', 'Giza'] },
  { code: 'SA', weight: 1, language: 'ar', cities: ['Riyadh', 'Jeddah', 'Dammam'] },
  { code: 'AE', weight: 0.8, language: 'ar', cities: ['Dubai', 'Abu Dhabi', 'Sharjah'] },
  { code: 'PK', weight: 1, language: 'ur', cities: ['Karachi', 'Lahore', 'Islamabad'] },
  { code: 'BD', weight: 0.8, language: 'bn', cities: ['Dhaka', 'Chittagong', 'Khulna'] },
  { code: 'MY', weight: 0.8, language: 'ms', cities: ['Kuala Lumpur', 'George Town', 'Johor Bahru'] },
  { code: 'CL', weight: 0.6, language: 'es', cities: ['Santiago', 'Valparaíso', 'Concepción'] },
  { code: 'PE', weight: 0.6, language: 'es', cities: ['Lima', 'Arequipa', 'Trujillo'] },
  { code: 'PT', weight: 0.6, language: 'pt', cities: ['Lisbon', 'Porto', 'Braga'] },
  { code: 'IE', weight: 0.5, language: 'en', cities: ['Dublin', 'Cork', 'Galway'] },
  { code: 'BE', weight: 0.5, language: 'nl', cities: ['Brussels', 'Antwerp', 'Ghent'] },
  { code: 'CH', weight: 0.5, language: 'de', cities: ['Zurich', 'Geneva', 'Basel'] },
  { code: 'AT', weight: 0.4, language: 'de', cities: ['Vienna', 'Graz', 'Salzburg'] },
  { code: 'NZ', weight: 0.4, language: 'en', cities: ['Auckland', 'Wellington', 'Christchurch'] },
  { code: 'SG', weight: 0.5, language: 'en', cities: ['Singapore', 'Jurong West', 'Tampines'] },
];

/** Countries that bought-follower audiences come from in the demo data. */
export const FARM_COUNTRIES = ['IN', 'BD', 'ID', 'PK', 'EG', 'VN', 'PH', 'NG'] as const;

/** Share of female audience by niche (percent), before noise. */
export const NICHE_FEMALE_SHARE: Readonly<Record<Niche, number>> = {
  beauty: 82, fashion: 74, fitness: 55, food: 58, travel: 57, gaming: 24, tech: 28, finance: 35, parenting: 80,
  music: 52, comedy: 48, education: 50, sports: 30, lifestyle: 66, pets: 64, automotive: 18, home: 70, health: 62,
  art: 58, business: 40,
};

/** Audience interests that go with each niche (the niche itself comes first). */
export const NICHE_INTERESTS: Readonly<Record<Niche, [string, string, string]>> = {
  beauty: ['fashion', 'lifestyle', 'health'], fashion: ['beauty', 'lifestyle', 'travel'],
  fitness: ['health', 'sports', 'food'], food: ['travel', 'home', 'health'], travel: ['food', 'lifestyle', 'art'],
  gaming: ['tech', 'music', 'comedy'], tech: ['gaming', 'business', 'education'], finance: ['business', 'tech', 'education'],
  parenting: ['home', 'food', 'education'], music: ['art', 'comedy', 'lifestyle'], comedy: ['music', 'gaming', 'lifestyle'],
  education: ['tech', 'business', 'finance'], sports: ['fitness', 'health', 'automotive'], lifestyle: ['fashion', 'travel', 'home'],
  pets: ['home', 'lifestyle', 'parenting'], automotive: ['tech', 'sports', 'business'], home: ['lifestyle', 'parenting', 'art'],
  health: ['fitness', 'food', 'lifestyle'], art: ['music', 'home', 'fashion'], business: ['finance', 'tech', 'education'],
};

export const FIRST_NAMES = [
  'emma', 'liam', 'olivia', 'noah', 'ava', 'mia', 'lucas', 'sofia', 'mateo', 'isabella', 'leo', 'aria', 'arjun', 'priya',
  'yuki', 'hana', 'omar', 'layla', 'ana', 'joao', 'lena', 'max', 'chloe', 'nina', 'kai', 'zoe', 'ethan', 'maya', 'sam',
  'ruby', 'diego', 'valentina', 'felix', 'clara', 'amir', 'sara', 'theo', 'ines', 'jin', 'mei',
] as const;

export const LAST_NAMES = [
  'smith', 'garcia', 'silva', 'kim', 'nguyen', 'patel', 'mueller', 'rossi', 'dubois', 'tanaka', 'lopez', 'khan',
  'santos', 'jones', 'brown', 'martin', 'costa', 'ali', 'novak', 'berg', 'reyes', 'park', 'chen', 'wright', 'cruz',
  'moreau', 'kowalski', 'yilmaz', 'okafor', 'hughes',
] as const;

/** Words joined into handles; one per niche, so a handle hints at its niche as real ones often do. */
export const NICHE_WORDS: Readonly<Record<Niche, string>> = {
  beauty: 'glow', fashion: 'style', fitness: 'fit', food: 'eats', travel: 'travels', gaming: 'plays', tech: 'tech',
  finance: 'money', parenting: 'mom', music: 'music', comedy: 'laughs', education: 'learns', sports: 'sports',
  lifestyle: 'life', pets: 'pets', automotive: 'cars', home: 'home', health: 'wellness', art: 'art', business: 'biz',
};
